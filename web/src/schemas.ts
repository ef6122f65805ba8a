// The schemas' stage of the app's start (main.tsx): zod itself, configured before any schema is built.
// The shared contracts' schemas are built with the app's own code, each with the module that uses it.
import './zodConfig';
