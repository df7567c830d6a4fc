/**
 * Charts of the UAT dashboard, drawn as SVG by React (no chart library, no CDN): a horizontal bar
 * chart and a donut. Colours come from a fixed palette so a category keeps its colour.
 */
export interface Datum {
  label: string;
  value: number;
  /** Shown after the bar instead of the raw value. */
  display?: string;
  /** A fixed colour (e.g. the map's legend colour); otherwise the palette's. */
  color?: string;
}

export const PALETTE = ['#0f766e', '#2563eb', '#b45309', '#7c3aed', '#15803d', '#c2410c', '#0891b2', '#be185d', '#4d7c0f', '#6b7685'];

/** Longest label drawn whole; a longer one ends in "…" (its full text stays in the tooltip). */
const MAX_LABEL_CHARS = 48;
/** Widths of one character of the label (12 px) and value (11 px) fonts, generous for capitals. */
const LABEL_CHAR_W = 7.4;
const VALUE_CHAR_W = 6.6;

export function BarChart({ data, title, unit }: { data: Datum[]; title: string; unit?: string }) {
  if (data.length === 0) return <p className="chart-empty">Nu există date.</p>;
  const max = Math.max(...data.map((d) => d.value), 1);
  const row = 26;
  const labelOf = (d: Datum) => (d.label.length > MAX_LABEL_CHARS ? `${d.label.slice(0, MAX_LABEL_CHARS - 1)}…` : d.label);
  const valueOf = (d: Datum) => `${d.display ?? d.value}${unit ? ` ${unit}` : ''}`;
  // Room for the longest label and the longest value, so neither is cut at the chart's edge.
  const labelW = Math.ceil(Math.max(...data.map((d) => labelOf(d).length)) * LABEL_CHAR_W) + 12;
  const valueW = Math.ceil(Math.max(...data.map((d) => valueOf(d).length)) * VALUE_CHAR_W) + 12;
  const barW = 320;
  const height = data.length * row + 4;
  return (
    <svg className="chart" role="img" aria-label={title} viewBox={`0 0 ${labelW + barW + valueW} ${height}`} width="100%">
      {data.map((d, i) => {
        const w = Math.max(1, (d.value / max) * barW);
        const y = i * row + 2;
        return (
          <g key={d.label} transform={`translate(0 ${y})`}>
            <title>{`${d.label}: ${valueOf(d)}`}</title>
            <text x={labelW - 8} y={row / 2 + 4} textAnchor="end" className="chart__label">
              {labelOf(d)}
            </text>
            <rect x={labelW} y={4} width={w} height={row - 8} rx={3} fill={d.color ?? PALETTE[i % PALETTE.length]} />
            <text x={labelW + w + 6} y={row / 2 + 4} className="chart__value">
              {valueOf(d)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

export function DonutChart({ data, title, centre }: { data: Datum[]; title: string; centre?: string }) {
  const total = data.reduce((s, d) => s + d.value, 0);
  if (total <= 0) return <p className="chart-empty">Nu există date.</p>;
  const r = 60;
  const c = 2 * Math.PI * r;
  let offset = 0;
  return (
    <div className="donut">
      <svg className="chart" role="img" aria-label={title} viewBox="0 0 160 160" width="160" height="160">
        <g transform="rotate(-90 80 80)">
          {data.map((d, i) => {
            const len = (d.value / total) * c;
            const el = (
              <circle key={d.label} cx="80" cy="80" r={r} fill="none" stroke={d.color ?? PALETTE[i % PALETTE.length]} strokeWidth="22" strokeDasharray={`${len} ${c - len}`} strokeDashoffset={-offset}>
                <title>{`${d.label}: ${d.display ?? d.value}`}</title>
              </circle>
            );
            offset += len;
            return el;
          })}
        </g>
        {centre && (
          <text x="80" y="86" textAnchor="middle" className="donut__centre">
            {centre}
          </text>
        )}
      </svg>
      <ul className="legend">
        {data.map((d, i) => (
          <li key={d.label}>
            <span className="legend__swatch" style={{ background: d.color ?? PALETTE[i % PALETTE.length] }} />
            {d.label}: <strong>{d.display ?? d.value}</strong> ({Math.round((d.value / total) * 100)}%)
          </li>
        ))}
      </ul>
    </div>
  );
}
