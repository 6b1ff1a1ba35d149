/**
 * A `when`/`for_each` expression that cannot be parsed or evaluated. `at` is the offset in the
 * expression text where the problem is (parse errors), for the validator's messages.
 */
export class ExpressionError extends Error {
  readonly at: number | undefined;

  constructor(message: string, at?: number) {
    super(message);
    this.name = new.target.name;
    this.at = at;
  }
}
