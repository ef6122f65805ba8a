// `npm run test:chaos`: the money suite whole, with the fault matrix that `npm test` leaves out (a fault
// at every step of a payout and of a checkout, each settled exactly once).
import './money.test.js';
