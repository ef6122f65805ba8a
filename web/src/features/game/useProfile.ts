import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { profileQuery } from '../../api/auth';
import { useSession } from '../../session/SessionProvider';

/** The signed-in user's profile; identity changes are written back to the session. */
export function useProfile() {
  const session = useSession();
  const query = useQuery(profileQuery(session.token));
  const { updateIdentity } = session;
  useEffect(() => {
    if (query.data) updateIdentity(query.data);
  }, [query.data, updateIdentity]);
  useEffect(() => {
    // The client contract: a profile failure is only logged.
    if (query.error) console.warn('No se pudo obtener el perfil del usuario', query.error);
  }, [query.error]);
  return query;
}
