// One figure of a bench run beside its target: what the report prints and the scenarios fill in.
export interface Check {
  figure: string;
  value: string;
  target: string;
  met: boolean | null;
}
