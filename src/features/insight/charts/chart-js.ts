// Chart.js, registered once with only the parts the dashboards draw (line, bar, doughnut on category and linear
// scales), so the dashboard chunk carries about 60 KB gzip of it. Why Chart.js: docs/charts.md (measured against
// ECharts, Recharts and uPlot). Colours are the app's palette (styles.css), chosen to stay apart for colour-blind
// readers, and sentiment always has the same three.
import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  DoughnutController,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';

Chart.register(
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  DoughnutController,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
);
Chart.defaults.font.family = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
Chart.defaults.color = '#5d5b73';
Chart.defaults.borderColor = '#dedce8';
// Charts follow the reader's wish for less motion.
if (typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches) {
  Chart.defaults.animation = false;
}

export { Chart };

export const COLORS = {
  primary: '#4338ca',
  spike: '#b42318',
  positive: '#15803d',
  neutral: '#8a8799',
  negative: '#c2410c',
  series: ['#4338ca', '#0e7490', '#b45309', '#7c3aed', '#be185d', '#15803d'],
} as const;
