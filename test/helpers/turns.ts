// Whether long work gives the event loop back: a self-rescheduling setImmediate counts the turns other
// work got while `work` ran (none when it ran as one block of synchronous steps and microtasks).

/** How many times a timer got to run while `work` did. */
export async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    await work();
  } finally {
    done = true;
  }
  return turns;
}
