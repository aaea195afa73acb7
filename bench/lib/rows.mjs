/** A result row of the bench table. */

/**
 * kind 'time': figure and baseline are durations, ratio = figure / baseline, pass when <= target.
 * kind 'throughput': figure and baseline are bytes/ms, ratio = figure / baseline, pass when >= target.
 * kind 'memory': figure is the largest peak RSS, baseline the peak RSS at the smallest size.
 */
export function row({ what, figure, baseline, ratio, target, pass, targetText, note }) {
  return { what, figure, baseline, ratio, target, targetText, pass, note };
}

export function timeRow(what, figureMs, baselineMs, maxRatio, fmt, note) {
  const ratio = figureMs / baselineMs;
  return row({
    what,
    figure: fmt(figureMs),
    baseline: fmt(baselineMs),
    ratio: `${ratio.toFixed(2)}x`,
    targetText: `<= ${maxRatio}x`,
    pass: ratio <= maxRatio,
    note,
  });
}

/** A row that could not be measured: printed as skipped, with the reason in its note (it fails the bench). */
export function notRunRow(what, reason) {
  return row({ what: `${what} (not run)`, figure: '-', baseline: '-', ratio: '-', targetText: '-', pass: undefined, note: reason });
}
