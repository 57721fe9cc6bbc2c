// Whether an answer reached its caller. A charge is kept only for an answer that left this process: the surface that
// answers (an HTTP response) makes a delivery for the request and ends it when the response was handed to the
// network, or closed before it was; work with no delivery (in-process callers) counts as delivered at once.

type Settle = (delivered: boolean) => void;

export interface Delivery {
  /** Calls `settle` once the answer has left (true) or cannot (false). */
  onDelivery(settle: Settle): void;
  end(delivered: boolean): void;
}

export function createDelivery(): Delivery {
  let waiting: Settle[] = [];
  let outcome: boolean | undefined;
  return {
    onDelivery(settle) {
      if (outcome === undefined) waiting.push(settle);
      else settle(outcome);
    },
    end(delivered) {
      if (outcome !== undefined) return;
      outcome = delivered;
      const settles = waiting;
      waiting = [];
      for (const settle of settles) settle(delivered);
    },
  };
}
