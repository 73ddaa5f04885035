// An example seller Platform on @marketplace/client: it pushes an inventory file, follows the
// order poll from a stored checkpoint (accepting new orders, then shipping accepted ones), and
// receives the marketplace's webhooks, verifying each before acting on it.
//
//   MARKETPLACE_URL=http://127.0.0.1:3000 MARKETPLACE_API_KEY=mp_maple_... WEBHOOK_SECRET=whsec_... \
//   INVENTORY_FILE=inventory.csv CHECKPOINT_FILE=.orders-checkpoint WEBHOOK_PORT=8080 \
//   npx tsx examples/platform-sync.ts
//
// The inventory file is CSV with a header: skuId,productId,price,quantity,externalRef.
import http from 'node:http';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import {
  createClient,
  verifyWebhook,
  WebhookVerificationError,
  type ListingWrite,
  type MarketplaceClient,
  type WebhookEvent,
} from '../clients/typescript/src/index.js';

/** Reads the inventory CSV into listing writes. */
export async function readInventory(file: string): Promise<ListingWrite[]> {
  const [header, ...rows] = (await readFile(file, 'utf8')).split(/\r?\n/).filter((l) => l.trim() !== '');
  const columns = header!.split(',').map((c) => c.trim());
  return rows.map((row) => {
    const cells = Object.fromEntries(row.split(',').map((v, i) => [columns[i], v.trim()]));
    return {
      skuId: Number(cells.skuId),
      productId: Number(cells.productId),
      price: Number(cells.price),
      quantity: Number(cells.quantity),
      ...(cells.externalRef ? { externalRef: cells.externalRef } : {}),
    };
  });
}

/** Pushes the file's listings (any number: the client sends 1,000 per call); how many items ended each way. */
export async function pushInventory(client: MarketplaceClient, file: string): Promise<Record<string, number>> {
  const items = await readInventory(file);
  const results = await client.listings.write(items);
  const counts: Record<string, number> = { applied: 0, unmatched: 0, rejected: 0 };
  results.forEach((r, i) => {
    counts[r.status] = (counts[r.status] ?? 0) + 1;
    if (r.status === 'rejected') console.warn(`inventory row ${i + 2} (sku ${r.skuId}) rejected: ${r.reason}`);
  });
  console.log(`inventory pushed: ${items.length} items, ${counts.applied} applied, ${counts.unmatched} unmatched, ${counts.rejected} rejected`);
  return counts;
}

/** Where the order walk stands: the checkpoint the client hands over, kept in a file (written whole, then renamed). */
export function fileCheckpoints(file: string) {
  return {
    async load(): Promise<string | undefined> {
      return readFile(file, 'utf8').catch(() => undefined);
    },
    async save(checkpoint: string): Promise<void> {
      await writeFile(`${file}.tmp`, checkpoint);
      await rename(`${file}.tmp`, file);
    },
  };
}

export interface Tracking {
  trackingCompany: string;
  trackingNumber: string;
}

/**
 * One pass over the order changes since the stored checkpoint: a new order is accepted, an
 * accepted one shipped (its acceptance comes back as a change of its own, on this pass or the
 * next). The checkpoint is stored after each change is handled, so a restart neither misses nor
 * repeats one. Returns how many changes were handled.
 */
export async function followOrders(
  client: MarketplaceClient,
  checkpoints: ReturnType<typeof fileCheckpoints>,
  tracking: (orderId: string) => Tracking,
): Promise<number> {
  let handled = 0;
  const checkpoint = await checkpoints.load();
  for await (const change of client.orders.poll(checkpoint ? { checkpoint } : {})) {
    const { order } = change;
    if (order.status === undefined) {
      await client.orders.fulfill(order.order_id, { status: 'accepted' });
      console.log(`order ${order.order_id}: accepted (${order.lines.length} lines)`);
    } else if (order.status === 'accepted') {
      await client.orders.fulfill(order.order_id, { status: 'shipped', ...tracking(order.order_id) });
      console.log(`order ${order.order_id}: shipped`);
    }
    await checkpoints.save(change.checkpoint);
    handled++;
  }
  return handled;
}

/** The webhook endpoint: verifies each delivery's signature and age, answers 204 (or 400), and hands each event over once. */
export function webhookReceiver(secret: string, onEvent: (event: WebhookEvent) => void): http.Server {
  const seen = new Set<string>();
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        // The raw bytes: a re-serialized body would not verify.
        const event = verifyWebhook(Buffer.concat(chunks), req.headers, secret);
        // Deliveries are at least once: the event id says whether this one was handled already.
        if (!seen.has(event.id)) {
          seen.add(event.id);
          onEvent(event);
        }
        res.writeHead(204).end();
      } catch (err) {
        if (!(err instanceof WebhookVerificationError)) throw err;
        console.warn(`webhook refused: ${err.reason}`);
        res.writeHead(400).end();
      }
    });
  });
}

async function main(): Promise<void> {
  const env = (name: string): string => {
    const v = process.env[name];
    if (!v) throw new Error(`${name} is required`);
    return v;
  };
  const client = createClient({ baseUrl: env('MARKETPLACE_URL'), apiKey: env('MARKETPLACE_API_KEY') });
  const receiver = webhookReceiver(env('WEBHOOK_SECRET'), (e) => console.log(`webhook ${e.type} ${e.data.order_id}`));
  receiver.listen(Number(process.env.WEBHOOK_PORT ?? 8080));
  await pushInventory(client, env('INVENTORY_FILE'));
  const checkpoints = fileCheckpoints(process.env.CHECKPOINT_FILE ?? '.orders-checkpoint');
  let stopping = false;
  process.once('SIGINT', () => (stopping = true));
  process.once('SIGTERM', () => (stopping = true));
  while (!stopping) {
    await followOrders(client, checkpoints, (id) => ({ trackingCompany: 'Canada Post', trackingNumber: `CP-${id}` }));
    await new Promise((r) => setTimeout(r, 5000));
  }
  receiver.close();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
