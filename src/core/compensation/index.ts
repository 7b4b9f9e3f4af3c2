/** Compensation (sagas): taking back what a run's completed calls did (docs/undo.md). */
export {
  compensationPlan,
  hasCompensations,
  notCompensable,
  type CompensationStep,
} from "./plan";
export {
  COMPENSATION_ATTEMPTS,
  COMPENSATION_RETRY_BASE_MS,
  compensateCall,
  compensateRun,
  type CompensateOptions,
} from "./run";
