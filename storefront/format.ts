// Display formats of the page's own. Money is integer minor units (api-contract.md); the buyer API
// does not name a currency (each seller sells in its own), so amounts are shown without a symbol.

const amount = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const formatMinor = (minor: number): string => amount.format(minor / 100);

export const plural = (n: number, one: string, many: string): string => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
