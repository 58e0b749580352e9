import type { SimulatedApps } from '../../plugins/index.js';
import { createSgdApps } from './apps/sgd-apps.js';
import { openSgdDatabase } from './apps/sgd-database.js';

/** The simulated apps over the SGD results database (`--db FILE`, else the built one, else the bundled subset). */
export const sgdApps: SimulatedApps = {
  open(db?: string) {
    const { db: database, source } = openSgdDatabase(db);
    return {
      source,
      handlers: (catalog) => createSgdApps({ db: database, catalog }),
      close: () => database.close(),
    };
  },
};
