// zod compiles object parsers with `new Function` when it may; the page's content security policy
// (script-src 'self') forbids that, so zod's probe only earned a CSP violation report on every load.
// Imported first in main.tsx: object schemas read this when they are built, at module evaluation.
import { config } from 'zod';

config({ jitless: true });
