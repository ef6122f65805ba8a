// A burst of 1,000 distinct players at once, three times over, counted whole (bursts.ts).
import { burstSuite } from './bursts.js';

burstSuite([1000]);
