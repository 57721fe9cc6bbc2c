// The module each extraction thread runs (conversions.ts starts them): the conversion tasks, served to the pool.
import { serveTasks } from '../workers/serve.js';
import { conversionTasks } from './conversion-tasks.js';

serveTasks(conversionTasks);
