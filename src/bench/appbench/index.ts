export * from './record.js';
export * from './sample.js';
export * from './gold-plan.js';
