// A worker thread contending for stale run locks: for each trial it waits at a shared barrier, then
// calls acquireRunLock on that trial's folder at the same instant as the other contenders.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { acquireRunLock } = await import('../run-lock.ts');
const { dirs, me, contenders, stalePid, shared } = workerData;
// [0]: trials released so far, [1]: contenders ready, [2 + t]: contenders that judged trial t's lock
const sync = new Int32Array(shared);
const spinMicros = (us) => {
  const end = process.hrtime.bigint() + BigInt(us) * 1000n;
  while (process.hrtime.bigint() < end);
};

/**
 * The liveness probe is where a taker has read the stale lock and is about to act on it: the
 * contenders wait there for each other (up to 20 ms), then go on after a random few microseconds,
 * so every interleaving of their next steps gets tried.
 */
function probeAfterRendezvous(t) {
  let met = false;
  return (pid) => {
    if (pid === stalePid && !met) {
      met = true;
      Atomics.add(sync, 2 + t, 1);
      Atomics.notify(sync, 2 + t);
      const until = Date.now() + 20;
      for (let n = Atomics.load(sync, 2 + t); n < contenders && Date.now() < until; n = Atomics.load(sync, 2 + t))
        Atomics.wait(sync, 2 + t, n, 1);
      spinMicros(Math.floor(Math.random() * 150));
    }
    return pid !== stalePid;
  };
}

const outcomes = [];
const held = [];
for (let t = 0; t < dirs.length; t++) {
  Atomics.add(sync, 1, 1);
  Atomics.notify(sync, 1);
  while (Atomics.load(sync, 0) <= t) Atomics.wait(sync, 0, t);
  try {
    const lock = acquireRunLock(dirs[t], { pid: me, hostname: 'box', isAlive: probeAfterRendezvous(t) });
    held.push(lock);
    outcomes.push('owner');
  } catch (error) {
    outcomes.push(`${error.code}: ${error.message}`);
  }
}
// hold every lock until all contenders are done, so a late one never finds a released folder
parentPort.postMessage(outcomes);
while (Atomics.load(sync, 0) <= dirs.length) Atomics.wait(sync, 0, dirs.length);
for (const lock of held) lock.release();
parentPort.postMessage('released');
