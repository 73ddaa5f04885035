/**
 * A statement's parameters by name: `ref.x` is the placeholder (`$n::type`) to write in its text
 * and `values(args)` the positional values in the same order. Built once per statement, so its text
 * stays constant (it can be a named prepared statement) and reads with names instead of numbers.
 */
export function namedParams<const T extends Record<string, string>>(types: T) {
  const names = Object.keys(types) as (keyof T & string)[];
  const ref = Object.fromEntries(names.map((n, i) => [n, `$${i + 1}::${types[n]}`])) as { readonly [K in keyof T]: string };
  return { ref, values: (args: { readonly [K in keyof T]: unknown }): unknown[] => names.map((n) => args[n]) };
}
