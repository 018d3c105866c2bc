// Wraps an object (a Store, a rate limiter) so that every promise one of its methods returns rejects with
// a DatabaseUnavailableError when the database is down, instead of the driver's raw error: one place for
// the classification rather than a try/catch in every query.
import type { DatabaseUnavailableError } from './errors.js';

export type Classifier = (err: unknown) => DatabaseUnavailableError | undefined;

/** Sub-stores a Store exposes as properties (`store.lifecycle.confirm(…)`): guarded like the Store itself. */
export const SUB_STORES: readonly PropertyKey[] = ['lifecycle', 'events'];

/**
 * The same object, with each method's rejection (or synchronous throw) passed through `classify`
 * (unclassified errors unchanged). Objects held in the properties named by `nested` are guarded too.
 */
export function guardUnavailable<T extends object>(target: T, classify: Classifier, nested: readonly PropertyKey[] = []): T {
  const rethrow = (err: unknown): never => {
    throw classify(err) ?? err;
  };
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value: unknown = Reflect.get(obj, prop, receiver);
      if (value !== null && typeof value === 'object' && nested.includes(prop)) {
        if (!wrapped.has(prop)) wrapped.set(prop, guardUnavailable(value, classify));
        return wrapped.get(prop);
      }
      if (typeof value !== 'function' || prop === 'constructor') return value;
      let fn = wrapped.get(prop);
      if (!fn) {
        fn = function (this: unknown, ...args: unknown[]) {
          let out: unknown;
          try {
            out = (value as (...a: unknown[]) => unknown).apply(obj, args);
          } catch (err) {
            return rethrow(err);
          }
          return out instanceof Promise ? out.catch(rethrow) : out;
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}
