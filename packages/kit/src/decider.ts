// The shape of a pure aggregate (a "decider"): `decide` turns a command and the current state into
// the events that record it (or throws the domain's refusal); `evolve` folds one event into the
// state. Neither does I/O or reads a clock: ids and `now` arrive inside the command, so a decision is
// a value that tests state as given/when/then and a store only has to commit.
export interface Decider<Command, Event, State> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState: State;
}

/** The state after `events`, from `state` (the initial state unless given). */
export function evolveAll<Command, Event, State>(
  decider: Decider<Command, Event, State>,
  events: readonly Event[],
  state: State = decider.initialState,
): State {
  return events.reduce((s, e) => decider.evolve(s, e), state);
}
