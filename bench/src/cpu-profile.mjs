// Loaded with `--import` (NODE_OPTIONS) into a process under test: samples its CPU with the inspector
// (`--cpu-prof` may not be given in NODE_OPTIONS) and writes the profile to BENCH_CPU_PROFILE_FILE on exit.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const file = process.env.BENCH_CPU_PROFILE_FILE;
if (file) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  process.once('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
