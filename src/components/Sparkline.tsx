// A small inline line chart of a few values (a week of daily counts): drawn as SVG, no chart library. It is an image
// with a text alternative; the figure it stands for is written beside it by whoever uses it.
export interface SparklineProps {
  values: readonly number[];
  /** The text alternative, e.g. "Per day from Oct 29 to Nov 5: 3, 0, 12, …". */
  label: string;
  width?: number;
  height?: number;
  /** The last value is of a period still running (today so far): its segment is dashed. */
  partialLast?: boolean;
}

export function Sparkline({ values, label, width = 96, height = 28, partialLast = false }: SparklineProps) {
  const pad = 3;
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? (width - 2 * pad) / (values.length - 1) : 0;
  const points = values.map((value, i) => {
    const x = pad + i * step;
    const y = height - pad - (value / max) * (height - 2 * pad);
    return [Math.round(x * 10) / 10, Math.round(y * 10) / 10] as const;
  });
  const line = points.map(([x, y]) => `${x},${y}`).join(' ');
  const solid = partialLast && points.length > 1 ? points.slice(0, -1) : points;
  const dashed = partialLast && points.length > 1 ? points.slice(-2) : [];
  const asPoints = (list: typeof points) => list.map(([x, y]) => `${x},${y}`).join(' ');
  const area = points.length
    ? `M${points[0]![0]},${height - pad} L${line.replaceAll(' ', ' L')} L${points.at(-1)![0]},${height - pad} Z`
    : '';
  const last = points.at(-1);
  return (
    <svg
      className="sparkline"
      role="img"
      aria-label={label}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
    >
      <path className="sparkline-area" d={area} />
      <polyline className="sparkline-line" points={asPoints(solid)} />
      {dashed.length ? <polyline className="sparkline-line partial" points={asPoints(dashed)} /> : null}
      {last ? <circle className="sparkline-dot" cx={last[0]} cy={last[1]} r={2.5} /> : null}
    </svg>
  );
}
