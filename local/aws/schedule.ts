/**
 * Schedule expressions of EventBridge rules ("Creating an Amazon EventBridge rule that runs on a
 * schedule", "Schedule expressions for rules"): `rate(value unit)` with unit minute(s), hour(s),
 * day(s), and `cron(minutes hours day-of-month month day-of-week year)` in UTC, where one of
 * day-of-month / day-of-week must be `?`, day-of-week counts 1-7 from Sunday (or SUN-SAT).
 *
 * Locally a schedule follows the sandbox clock, not the wall clock: moving the sandbox clock
 * forward by days moves the connector's schedules with it. When the clock jumps past several
 * firings, the rule fires once at the new time (EventBridge does not replay missed firings).
 * `L`, `W` and `#` in cron fields are not modeled and stop the runtime at start-up.
 */

export interface Schedule {
  readonly expression: string;
  /** The first firing strictly after `after`. */
  next(after: Date): Date;
}

const RATE = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/;
const CRON = /^cron\((.+)\)$/;
const UNIT_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

export function parseSchedule(expression: string): Schedule {
  const rate = RATE.exec(expression);
  if (rate) {
    const value = Number(rate[1]);
    const unit = (rate[2] as string).replace(/s$/, '') as keyof typeof UNIT_MS;
    if (value < 1) throw new Error(`schedule ${expression}: the rate must be at least 1`);
    if ((value === 1) !== !(rate[2] as string).endsWith('s')) {
      throw new Error(`schedule ${expression}: use the singular unit for 1 and the plural otherwise`);
    }
    const everyMs = value * UNIT_MS[unit];
    return { expression, next: (after) => new Date(after.getTime() + everyMs) };
  }
  const cron = CRON.exec(expression);
  if (cron) return cronSchedule(expression, (cron[1] as string).trim().split(/\s+/));
  throw new Error(`schedule ${expression}: expected rate(...) or cron(...)`);
}

function cronSchedule(expression: string, fields: string[]): Schedule {
  if (fields.length !== 6) throw new Error(`schedule ${expression}: cron takes six fields`);
  const [minutes, hours, dayOfMonth, month, dayOfWeek, year] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if ((dayOfMonth === '?') === (dayOfWeek === '?')) {
    throw new Error(`schedule ${expression}: exactly one of day-of-month and day-of-week must be ?`);
  }
  const minuteSet = field(expression, minutes, 0, 59);
  const hourSet = field(expression, hours, 0, 23);
  const domSet = dayOfMonth === '?' ? undefined : field(expression, dayOfMonth, 1, 31);
  const monthSet = field(expression, month, 1, 12, MONTHS);
  const dowSet = dayOfWeek === '?' ? undefined : field(expression, dayOfWeek, 1, 7, DAYS);
  const yearSet = field(expression, year, 1970, 2199);
  return {
    expression,
    next(after) {
      const at = new Date(after.getTime());
      at.setUTCSeconds(0, 0);
      at.setUTCMinutes(at.getUTCMinutes() + 1);
      // Minute by minute is plenty for the schedules a connector uses; bounded to five years.
      for (let step = 0; step < 5 * 366 * 24 * 60; step++) {
        if (
          yearSet.has(at.getUTCFullYear()) &&
          monthSet.has(at.getUTCMonth() + 1) &&
          (domSet === undefined || domSet.has(at.getUTCDate())) &&
          (dowSet === undefined || dowSet.has(at.getUTCDay() + 1)) &&
          hourSet.has(at.getUTCHours()) &&
          minuteSet.has(at.getUTCMinutes())
        ) {
          return at;
        }
        at.setUTCMinutes(at.getUTCMinutes() + 1);
      }
      throw new Error(`schedule ${expression} never fires`);
    },
  };
}

function field(
  expression: string,
  text: string,
  min: number,
  max: number,
  names: string[] = [],
): Set<number> {
  const values = new Set<number>();
  const value = (raw: string): number => {
    const index = names.indexOf(raw.toUpperCase());
    const number = index >= 0 ? index + 1 : Number(raw);
    if (!Number.isInteger(number) || number < min || number > max) {
      throw new Error(`schedule ${expression}: ${raw} is not in ${min}-${max}`);
    }
    return number;
  };
  for (const part of text.split(',')) {
    if (/[LW#]/.test(part)) throw new Error(`schedule ${expression}: L, W and # are not modeled locally`);
    const [range, stepText] = part.split('/') as [string, string | undefined];
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new Error(`schedule ${expression}: bad step in ${part}`);
    let from = min;
    let to = max;
    if (range !== '*') {
      const [a, b] = range.split('-') as [string, string | undefined];
      from = value(a);
      to = b === undefined ? (stepText === undefined ? from : max) : value(b);
    }
    for (let n = from; n <= to; n += step) values.add(n);
  }
  return values;
}
