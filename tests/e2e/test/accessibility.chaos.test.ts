// `npm run test:chaos`: the accessibility audit of every screen and dialog in all six languages (`npm test`
// audits Spanish, the default).
import './accessibility.e2e.test.js';
