// Sessions the server ended: this browser signs out too, on whichever call noticed it.
import { useEffect, useRef } from 'react';
import { onSessionEnded, onSuspension } from './refusals';

export function useServerEndings(
  token: string | null,
  leave: (guest: boolean, note: string | null, path: string, replace?: boolean) => void,
  setSuspension: (serverMessage: string) => void,
): void {
  // Suspended: signed out here at once (the server already ended every session, so no logout call), the
  // reason shown until dismissed; no request that needs the token is made again, so nothing retries.
  useEffect(
    () =>
      onSuspension((serverMessage) => {
        setSuspension(serverMessage);
        leave(false, null, '/', true);
      }),
    [leave, setSuspension],
  );

  // Ended by the server (signed out elsewhere, a security change). A refusal of a token this browser has
  // since replaced changes nothing.
  const tokenRef = useRef(token);
  tokenRef.current = token;
  useEffect(
    () =>
      onSessionEnded((ended) => {
        if (ended === undefined || ended !== tokenRef.current) return;
        leave(false, 'session.ended', '/', true);
      }),
    [leave],
  );
}
