// The one way time reaches code that decides: a `Clock` is passed in (`rt.clock` in a service), and
// domain code takes the `now` it returns as a value. Tests pass their own.
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
