// Chart.js, registered once with only the parts the dashboards draw (line, bar, doughnut on category and linear
// scales): about 60 KB gzip, in a chunk of its own that ChartCanvas loads when the first chart of a page comes near the
// viewport, so its evaluation and registration are not part of a dashboard's start (on a phone the charts are below
// the fold). Why Chart.js: docs/charts.md (measured against ECharts, Recharts and uPlot). The colours: ./colors.ts.
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
