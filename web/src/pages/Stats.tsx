// Stats of a project: totals, entries by status and how many were referred, signups per day over the last 30 UTC days (an SVG drawn here), top sources and countries.
import { useEffect, useState } from 'preact/hooks';
import { api, type Project, type Stats } from '../api.js';
import { ErrorMsg } from '../ui.js';

const regionNames = (() => {
  try {
    return new Intl.DisplayNames(undefined, { type: 'region' });
  } catch {
    return null;
  }
})();
const countryName = (code: string) => {
  try {
    return regionNames?.of(code) ?? code;
  } catch {
    return code;
  }
};

export function StatsTab({ project }: { project: Project }) {
  const [stats, setStats] = useState<Stats | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => void api.stats(project.projectId).then(setStats, setError), [project.projectId]);

  if (error) return <ErrorMsg error={error} />;
  if (!stats) return <p>Loading…</p>;
  return (
    <section aria-labelledby="stats-title">
      <h2 id="stats-title">Stats</h2>
      <ul class="totals">
        <li>
          <span class="big">{stats.total}</span> total
        </li>
        <li>
          <span class="big">{stats.last7Days}</span> last 7 days
        </li>
        <li>
          <span class="big">{stats.today}</span> today (UTC)
        </li>
      </ul>
      {stats.byStatus ? (
        <div class="card">
          <h3 id="status-title">By status</h3>
          <ul class="status-totals" aria-labelledby="status-title">
            {(['pending', 'waiting', 'invited', 'accepted'] as const).map((s) => (
              <li key={s} data-status={s}>
                <span class="big">{stats.byStatus![s]}</span> {s}
              </li>
            ))}
          </ul>
          {stats.referred !== undefined ? (
            <p id="stats-referred">
              <strong>{stats.referred}</strong> of {stats.total} came through a referral
              {stats.total ? ` (${Math.round((100 * stats.referred) / stats.total)} %)` : ''}.
            </p>
          ) : null}
        </div>
      ) : null}
      <div class="card">
        <h3 id="chart-title">Signups per day, last 30 days</h3>
        <DayChart perDay={stats.perDay} />
        <details>
          <summary>Show as a table</summary>
          <table>
            <thead>
              <tr>
                <th scope="col">Date (UTC)</th>
                <th scope="col">Signups</th>
              </tr>
            </thead>
            <tbody>
              {stats.perDay.map((d) => (
                <tr key={d.date}>
                  <td>{d.date}</td>
                  <td>{d.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      </div>
      <div class="grid2">
        <TopList title="Top sources" rows={stats.topSources.map((s) => [s.source, s.count])} empty="No entries yet." />
        <TopList
          title="Top countries"
          rows={stats.topCountries.map((c) => [`${countryName(c.country)} (${c.country})`, c.count])}
          empty="No country known yet (private and local addresses have none)."
        />
      </div>
    </section>
  );
}

/** Bars for each day (an SVG stretched to the card's width); the labels are HTML so they stay readable at any width. */
function DayChart({ perDay }: { perDay: Stats['perDay'] }) {
  const H = 100;
  const slot = 10;
  const raw = Math.max(1, ...perDay.map((d) => d.count));
  const step = raw <= 5 ? 1 : 10 ** Math.floor(Math.log10(raw));
  let max = Math.ceil(raw / step) * step;
  if (max > 1 && max % 2) max += step; // keeps the middle grid line on a whole number
  const total = perDay.reduce((n, d) => n + d.count, 0);
  const first = perDay[0]?.date ?? '';
  const last = perDay[perDay.length - 1]?.date ?? '';
  const W = perDay.length * slot;
  return (
    <figure class="chart" aria-labelledby="chart-title">
      <div class="chart-y" aria-hidden="true">
        <span class="sizer">{max}</span>
        <span class="y-max">{max}</span>
        <span class="y-mid">{max / 2}</span>
        <span class="y-min">0</span>
      </div>
      {/* biome-ignore lint/a11y/noSvgWithoutTitle: named by aria-labelledby (the figure's title and the <desc>) */}
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-labelledby="chart-title chart-desc">
        <desc id="chart-desc">
          {total} signups from {first} to {last}; busiest day {Math.max(0, ...perDay.map((d) => d.count))}.
        </desc>
        {[0, H / 2, H].map((y) => (
          <line key={y} class="grid" x1={0} x2={W} y1={y} y2={y} vector-effect="non-scaling-stroke" />
        ))}
        {perDay.map((d, i) => {
          const h = (H * d.count) / max;
          return (
            <rect key={d.date} class="bar" x={i * slot + 1.5} width={slot - 3} y={H - h} height={h}>
              <title>
                {d.date}: {d.count}
              </title>
            </rect>
          );
        })}
      </svg>
      <div class="chart-x" aria-hidden="true">
        <span>{first}</span>
        <span>{last}</span>
      </div>
    </figure>
  );
}

function TopList({ title, rows, empty }: { title: string; rows: [string, number][]; empty: string }) {
  const max = Math.max(1, ...rows.map((r) => r[1]));
  return (
    <div class="card">
      <h3>{title}</h3>
      {rows.length === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <table class="top">
          <thead>
            <tr>
              <th scope="col">{title.replace('Top ', '').replace(/^./, (c) => c.toUpperCase())}</th>
              <th scope="col">Signups</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([label, n]) => (
              <tr key={label}>
                <td>{label}</td>
                <td>
                  <meter min={0} max={max} value={n} aria-hidden="true" /> {n}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
