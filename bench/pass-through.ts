// The floor under the read API benchmark: an HTTP server that forwards each request as it is to
// Elasticsearch over keep-alive connections and sends back the bytes it gets, parsing nothing. What it
// adds over Elasticsearch alone is the cost of the extra hop by itself (one more loopback round
// trip and a Node HTTP server and client in between), which no API in Node can go under.
// Run by bench/read-api.ts --floor as its own process: PORT and ELASTICSEARCH_URL from the env.
import http from 'node:http';

const es = new URL(process.env.ELASTICSEARCH_URL!);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const headers: Record<string, string> = {};
    for (const k of ['content-type', 'accept']) if (req.headers[k]) headers[k] = String(req.headers[k]);
    const body = Buffer.concat(chunks);
    if (body.length) headers['content-length'] = String(body.length);
    const up = http.request({ agent, host: es.hostname, port: es.port, method: req.method, path: req.url, headers }, (r) => {
      const parts: Buffer[] = [];
      r.on('data', (c: Buffer) => parts.push(c));
      r.on('end', () => {
        const out = Buffer.concat(parts);
        res.writeHead(r.statusCode ?? 502, { 'content-type': String(r.headers['content-type'] ?? 'application/json'), 'content-length': out.length });
        res.end(out);
      });
    });
    up.on('error', (err) => res.writeHead(502).end(err.message));
    if (body.length) up.end(body);
    else up.end();
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
