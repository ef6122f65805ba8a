// A reconnect costs the servers no HTTP read: the server sends the state with every connection, and
// to a signed-in socket the profile's stamp, which changes whenever something of the player's did.
// The profile is read again only when the stamp differs from the one the last connection brought.
import { ProfileStamp } from '@omc/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../api/keys';
import type { GameSocket } from './gameSocket';

export function followProfileStamp(socket: GameSocket, queryClient: QueryClient) {
  let knownStamp: string | null = null;
  socket.on('profileStamp', (payload) => {
    const stamp = ProfileStamp.safeParse(payload);
    if (!stamp.success) return;
    if (knownStamp !== null && stamp.data !== knownStamp)
      void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
    knownStamp = stamp.data;
  });
}
