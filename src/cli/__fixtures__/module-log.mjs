// `node --import <this file> …` (with APIARY_MODULE_LOG=<file>): registers the hooks that log every loaded ES module.
import { register } from 'node:module';

register('./module-log-hooks.mjs', import.meta.url);
