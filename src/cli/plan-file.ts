import { type Plan, readPlanFile } from '../plan/index.js';
import { InputInvalidError } from '../shared/index.js';

/** A plan file for a command: an empty plan is a mistake (a wrong file, a plan not yet written), not a valid run. */
export function readNonEmptyPlanFile(file: string): Plan {
  const plan = readPlanFile(file);
  if (plan.steps.length === 0)
    throw new InputInvalidError(
      { file },
      'the plan has no steps; write at least one call (see examples/car-rental.plan.txt)',
    );
  return plan;
}
