/** A failure of one of a batch's operations, as the store and the batch's problem name it. */
import { BatchStepError } from '../../store/store.js';

/** Runs `work` for operation `index`; what it throws comes out as that operation's failure. */
export function atOperation<T>(index: number, work: () => T): T {
  try {
    const result = work();
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        throw new BatchStepError(index, error);
      }) as T;
    }
    return result;
  } catch (error) {
    throw new BatchStepError(index, error);
  }
}
