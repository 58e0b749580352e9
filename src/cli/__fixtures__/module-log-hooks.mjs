// Loader hooks (run on Node's hooks thread): append every ES module URL Node loads to $APIARY_MODULE_LOG.
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  if (process.env.APIARY_MODULE_LOG) appendFileSync(process.env.APIARY_MODULE_LOG, `${url}\n`);
  return nextLoad(url, context);
}
