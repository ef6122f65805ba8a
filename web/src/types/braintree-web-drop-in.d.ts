// The parts of braintree-web-drop-in's API this app uses (the package ships no type declarations).
declare module 'braintree-web-drop-in' {
  export interface PaymentMethodPayload {
    nonce: string;
    type: string;
    details?: Record<string, unknown>;
  }
  export interface Dropin {
    requestPaymentMethod(): Promise<PaymentMethodPayload>;
    isPaymentMethodRequestable(): boolean;
    on(
      event: 'paymentMethodRequestable' | 'noPaymentMethodRequestable' | 'paymentOptionSelected',
      handler: (event: unknown) => void,
    ): void;
    teardown(): Promise<void>;
  }
  export function create(options: Record<string, unknown>): Promise<Dropin>;
  const dropin: { create: typeof create };
  export default dropin;
}
