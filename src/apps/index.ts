export * from './app.js';
export * from './build-sgd-database-file.js';
export * from './normalize-slot-value.js';
export * from './sgd-apps.js';
export * from './sgd-database.js';
