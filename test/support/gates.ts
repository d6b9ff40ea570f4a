// Gates a test agent holds a run at until the test opens them, keyed by the run's task.

export interface Gate {
  /** How many deliveries reached the gate. */
  arrived: number;
  release: Promise<void>;
  open(): void;
}

export function createGates() {
  const held = new Map<string, Gate>();
  return {
    /** A gate for runs whose task is `task`. */
    hold(task: string): Gate {
      let open!: () => void;
      const release = new Promise<void>((resolve) => (open = resolve));
      const gate = { arrived: 0, release, open };
      held.set(task, gate);
      return gate;
    },
    get: (task: string): Gate | undefined => held.get(task),
    /** Opens every gate (at the end of a suite, so no delivery stays held). */
    openAll(): void {
      for (const gate of held.values()) gate.open();
    },
  };
}
