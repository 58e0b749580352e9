/**
 * The README's library tour, runnable: `npx tsx examples/library-tour.ts`.
 * (Inside the repo we import the sources; an installed package imports 'apiary' and 'apiary/appbench'.)
 */
import { createSgdApps, openSgdDatabase } from '../src/benchmarks/appbench/index.js';
import {
  analyzePlan,
  autoApprove,
  executePlan,
  loadCatalog,
  parsePlanText,
  renderCatalogText,
  validatePlan,
} from '../src/index.js';

const catalog = loadCatalog('appbench');
console.log(renderCatalogText(catalog, { apps: ['Weather'] }));

const { plan } = parsePlanText(
  [
    "Rents: [car_type, pickup_location, start_date, pickup_time, end_date = getcarsavailable(#city='Las Vegas', #start_date='2019-03-21', #pickup_time='10:00', #end_date='2019-03-25')]",
    "Rents: [car_name = reservecar(#pickup_location=pickup_location, #start_date=start_date, #pickup_time=pickup_time, #end_date=end_date, #car_type=car_type, #add_insurance='False')]",
    "Weather: [temperature = getweather(#city='Las Vegas', #date='2019-03-21')]",
  ].join('\n'),
);
console.log('issues:', validatePlan(plan, catalog).length);
const a = analyzePlan(plan);
console.log(`parallel scale ${a.parallelScale}, sequential scale ${a.sequentialScale}`);

const { db, source } = openSgdDatabase(); // the built database, else the bundled CC BY-SA subset
const result = await executePlan(plan, { catalog, handlers: createSgdApps({ db, catalog }), approve: autoApprove });
console.log(`database: ${source}; run ${result.status}`);
for (const s of result.steps) console.log(`${s.id} ${s.app}.${s.api}: ${s.status}`);
