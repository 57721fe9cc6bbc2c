// Publication dates as pages write them (ISO 8601 and its loose variants, RFC 2822, "March 5, 2024") → one ISO 8601
// form: `YYYY-MM-DD`, or `YYYY-MM-DDTHH:MM:SS` plus the page's own offset (`Z`, `+01:00`) when it gives one. A time
// without an offset stays without one: converting it would invent a time zone the page never named.

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
/** The zone names that RFC 2822 allows besides numeric offsets. */
const NAMED_ZONES: Record<string, string> = {
  z: 'Z',
  ut: 'Z',
  utc: 'Z',
  gmt: 'Z',
  est: '-05:00',
  edt: '-04:00',
  cst: '-06:00',
  cdt: '-05:00',
  mst: '-07:00',
  mdt: '-06:00',
  pst: '-08:00',
  pdt: '-07:00',
};

const TIME = String.raw`(?:[T\s]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?\s*([a-z]{1,3}|[+-]\d{2}(?::?\d{2})?)?)?`;
/** 2024-03-05, 2024/03/05, 2024-03-05T10:20:30.123+0100, 2024-03-05 10:20 */
const ISO_LIKE = new RegExp(String.raw`^(\d{4})[-/](\d{1,2})[-/](\d{1,2})${TIME}$`, 'i');
/** Tue, 05 Mar 2024 10:20:30 GMT, 5 March 2024 */
const DAY_MONTH_YEAR = new RegExp(
  String.raw`^(?:[a-z]{3,9},?\s+)?(\d{1,2})\s+([a-z]{3,9})\.?,?\s+(\d{4})${TIME}$`,
  'i',
);
/** March 5, 2024; Mar. 5 2024 10:20 UTC */
const MONTH_DAY_YEAR = new RegExp(
  String.raw`^(?:[a-z]{3,9},?\s+)?([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})${TIME}$`,
  'i',
);

const pad = (n: number) => String(n).padStart(2, '0');

function monthNumber(name: string): number {
  // "Mar", "Sept" and "March" are March; "Marchx" is nothing.
  const index = MONTHS.findIndex((month) => month.startsWith(name.toLowerCase()));
  return index === -1 ? NaN : index + 1;
}

function offsetOf(zone: string | undefined): string | null | undefined {
  if (zone === undefined) return '';
  const named = NAMED_ZONES[zone.toLowerCase()];
  if (named) return named;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!m) return undefined;
  const hours = Number(m[2]);
  const minutes = Number(m[3] ?? 0);
  return hours <= 14 && minutes <= 59 ? `${m[1]}${m[2]}:${pad(minutes)}` : undefined;
}

function assemble(year: number, month: number, day: number, time: (string | undefined)[]): string | null {
  if (year < 1000 || !(month >= 1 && month <= 12) || day < 1) return null;
  // Day 0 of the next month is the last day of this one.
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  const date = `${year}-${pad(month)}-${pad(day)}`;
  const [hour, minute, second, zone] = time;
  if (hour === undefined) return date;
  const h = Number(hour);
  const min = Number(minute);
  const s = Number(second ?? 0);
  const offset = offsetOf(zone);
  if (h > 23 || min > 59 || s > 59 || offset === undefined) return null;
  return `${date}T${pad(h)}:${pad(min)}:${pad(s)}${offset}`;
}

/** Any date a page gives → ISO 8601 (see above), or null when it is not a date this reads. Fractional seconds go. */
export function normaliseDate(value: string | null | undefined): string | null {
  const text = value?.trim() ?? '';
  if (text.length < 8 || text.length > 64) return null;
  let m = ISO_LIKE.exec(text);
  if (m) return assemble(Number(m[1]), Number(m[2]), Number(m[3]), m.slice(4));
  m = DAY_MONTH_YEAR.exec(text);
  if (m) return assemble(Number(m[3]), monthNumber(m[2]!), Number(m[1]), m.slice(4));
  m = MONTH_DAY_YEAR.exec(text);
  if (m) return assemble(Number(m[3]), monthNumber(m[1]!), Number(m[2]), m.slice(4));
  return null;
}

/** PDF dates (`D:20240305102030+01'00'`; the time and the offset are optional) → the same ISO 8601 form. */
export function normalisePdfDate(value: string | null | undefined): string | null {
  const m = /^(?:D:)?(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?(Z|[+-]\d{2}'?(?:\d{2}'?)?)?/.exec(
    value?.trim() ?? '',
  );
  if (!m) return null;
  const [, year, month, day, hour, minute, second, zone] = m;
  const time = hour === undefined ? '' : `T${hour}:${minute}:${second ?? '00'}${zone?.replace(/'/g, '') ?? ''}`;
  return normaliseDate(`${year}-${month}-${day}${time}`);
}
