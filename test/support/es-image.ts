// Same major as the server the local stack runs and as the @elastic/elasticsearch client.
export const ES_IMAGE = 'docker.elastic.co/elasticsearch/elasticsearch:9.2.4';
