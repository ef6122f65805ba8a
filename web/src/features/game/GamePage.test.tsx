import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { deferred, fakeApi, json, makeToken, profile, storeSession } from '../../test/fakeApi';
import { fakeSocket, renderApp } from '../../test/render';
import { watchPurchase } from '../../api/purchaseWatch';

const signIn = (role = 'standard') =>
  storeSession(makeToken({ username: 'ana', role, exp: Math.floor(Date.now() / 1000) + 900 }), { role });
const counter = () => screen.getByTestId('global-clicks');
const freeClicks = () => screen.getByTestId('free-clicks');
const clickButton = () => screen.getByRole('button', { name: '+1: suma un clic al contador' });

describe('game screen', () => {
  it('moves the counter and the balance at once, and keeps the server figures on success', async () => {
    signIn();
    const answer = deferred<Response>();
    const api = fakeApi({
      'GET /api/user/profile': () => json(200, profile({ freeClicks: 3 })),
      'POST /api/game/click': () => answer.promise,
    });
    const user = userEvent.setup();
    renderApp('/game');
    await waitFor(() => expect(counter()).toHaveTextContent('41'));
    await waitFor(() => expect(freeClicks()).toHaveTextContent('3'));
    await user.click(clickButton());
    expect(counter()).toHaveTextContent('42');
    expect(freeClicks()).toHaveTextContent('2');
    expect(api.callsTo('POST', '/api/game/click')[0]!.headers.authorization).toMatch(/^Bearer /);
    // The server's figures replace the optimistic ones (a purchase landed meanwhile: 7, 5 of them bought).
    answer.resolve(
      json(200, { globalClicks: 42, freeClicks: 7, purchasedClicks: 5, hasInfiniteClicks: false }),
    );
    await waitFor(() => expect(freeClicks()).toHaveTextContent('7'));
    expect(counter()).toHaveTextContent('42');
    // The click's answer carried the balance: one request per click, no profile read after it.
    await act(() => new Promise((resolve) => setTimeout(resolve, 1200)));
    expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(1);
  });

  it('reads the profile again when a click says the clicker became unlimited (a role change or a pass)', async () => {
    signIn();
    const api = fakeApi({
      'GET /api/user/profile': () => json(200, profile({ freeClicks: 3 })),
      'POST /api/game/click': () =>
        json(200, { globalClicks: 42, freeClicks: Number.MAX_SAFE_INTEGER, hasInfiniteClicks: true }),
    });
    const user = userEvent.setup();
    renderApp('/game');
    await waitFor(() => expect(freeClicks()).toHaveTextContent('3'));
    await user.click(clickButton());
    await waitFor(() => expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(2));
  });

  it("after the player's own purchase, reads the profile when the pot moves, until it shows the purchase", async () => {
    signIn();
    let bought = false;
    const api = fakeApi({
      'GET /api/user/profile': () => json(200, profile({ purchasedClicks: bought ? 100 : 0 })),
    });
    const socket = fakeSocket();
    renderApp('/game', { socket });
    await waitFor(() => expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(1));
    const pot = (value: number) =>
      act(() =>
        socket.emit('gameStateUpdate', {
          globalClicks: 50,
          pot: value,
          lastWinner: null,
          lastClickUser: null,
        }),
      );
    pot(20);
    watchPurchase(profile());
    // Another player's purchase moves the pot first: read, the purchase is not there yet.
    pot(20.5);
    await waitFor(() => expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(2), { timeout: 3000 });
    bought = true;
    pot(21);
    await waitFor(() => expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(3), { timeout: 3000 });
    // The profile shows the purchase: later pot changes are other players' purchases.
    pot(22);
    await act(() => new Promise((resolve) => setTimeout(resolve, 1200)));
    expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(3);
  });

  it('reads the profile when it can have changed, not on every state update', async () => {
    signIn();
    const api = fakeApi();
    const socket = fakeSocket();
    renderApp('/game', { socket });
    await waitFor(() => expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(1));
    for (let i = 0; i < 5; i++)
      act(() =>
        socket.emit('gameStateUpdate', {
          globalClicks: 50 + i,
          pot: 20,
          lastWinner: null,
          lastClickUser: 'carl',
        }),
      );
    await act(() => new Promise((resolve) => setTimeout(resolve, 1200)));
    expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(1);
    // A win ends the round: purchased clicks and passes expire, the winner's winnings grow.
    act(() => socket.emit('winner', { username: 'carl', pot: 20 }));
    await waitFor(() => expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(2));
  });

  it("reads the player's own win once, when its click's answer comes before its winner event", async () => {
    signIn();
    let credited = false;
    const api = fakeApi({
      'GET /api/user/profile': () => json(200, profile({ freeClicks: 3, potEarned: credited ? 20 : 0 })),
      'POST /api/game/click': () => {
        credited = true;
        return json(200, { globalClicks: 100, freeClicks: 2, round: 4, won: true });
      },
    });
    const socket = fakeSocket();
    const user = userEvent.setup();
    renderApp('/game', { socket });
    await waitFor(() => expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(1));
    await user.click(clickButton());
    await waitFor(() => expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(2));
    act(() => socket.emit('winner', { username: 'ana', pot: 20 }));
    // The winner event is the same win: no second read, and the winnings already show.
    await act(() => new Promise((resolve) => setTimeout(resolve, 1500)));
    expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(2);
  });

  it("reads the player's own win once when its winner event comes first, then until the winnings show", async () => {
    signIn();
    let credited = false;
    const click = deferred<Response>();
    const api = fakeApi({
      'GET /api/user/profile': () => json(200, profile({ freeClicks: 3, potEarned: credited ? 20 : 0 })),
      'POST /api/game/click': () => click.promise,
    });
    const socket = fakeSocket();
    const user = userEvent.setup();
    renderApp('/game', { socket });
    await waitFor(() => expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(1));
    await user.click(clickButton());
    act(() => socket.emit('winner', { username: 'ana', pot: 20 }));
    await waitFor(() => expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(2));
    // The click's answer says `won` for the same win: it reads nothing more.
    click.resolve(json(200, { globalClicks: 100, freeClicks: 2, round: 4, won: true }));
    await act(() => new Promise((resolve) => setTimeout(resolve, 200)));
    expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(2);
    // The winnings were not credited at that read: read again (once a second) until they show.
    credited = true;
    await waitFor(() => expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(3), { timeout: 3000 });
    await act(() => new Promise((resolve) => setTimeout(resolve, 1500)));
    expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(3);
  });

  it("reads the profile again until it carries the game's part (a new account the game has not heard of yet)", async () => {
    signIn();
    let reads = 0;
    const api = fakeApi({
      'GET /api/user/profile': () =>
        json(
          200,
          ++reads < 3 ? profile({ freeClicks: null, hasInfiniteClicks: null }) : profile({ freeClicks: 10 }),
        ),
    });
    renderApp('/game');
    await waitFor(() => expect(freeClicks()).toHaveTextContent('–'));
    // No event is due to bring it: the page asks again, and shows the balance once the game has it.
    await waitFor(() => expect(freeClicks()).toHaveTextContent('10'), { timeout: 5000 });
    expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(3);
    await act(() => new Promise((resolve) => setTimeout(resolve, 1500)));
    expect(api.callsTo('GET', '/api/user/profile')).toHaveLength(3);
  });

  it('rolls the counter and the balance back and shows the server message when the click is refused', async () => {
    signIn();
    const answer = deferred<Response>();
    fakeApi({
      'GET /api/user/profile': () => json(200, profile({ freeClicks: 3 })),
      'POST /api/game/click': () => answer.promise,
    });
    const user = userEvent.setup();
    renderApp('/game');
    await waitFor(() => expect(freeClicks()).toHaveTextContent('3'));
    await user.click(clickButton());
    expect(counter()).toHaveTextContent('42');
    expect(freeClicks()).toHaveTextContent('2');
    await act(async () => answer.resolve(json(429, { message: 'Demasiado rápido', requestId: 'r' })));
    await waitFor(() => expect(counter()).toHaveTextContent('41'));
    expect(freeClicks()).toHaveTextContent('3');
    expect(await screen.findByRole('alert')).toHaveTextContent('Demasiado rápido');
  });

  it('tells a player suspended mid-session why, signs out here and sends nothing more', async () => {
    signIn();
    const reason = 'This account is suspended: Click farm. Contact support to appeal.';
    const api = fakeApi({
      'GET /api/user/profile': () => json(200, profile({ freeClicks: 3 })),
      'POST /api/game/click': () =>
        json(403, { message: reason, error: reason, msg: reason, code: 'ACCOUNT_SUSPENDED' }),
    });
    const user = userEvent.setup();
    renderApp('/game');
    await waitFor(() => expect(freeClicks()).toHaveTextContent('3'));
    await user.click(clickButton());
    const notice = await screen.findByRole('alert', { name: 'Tu cuenta está suspendida' });
    expect(notice).toHaveTextContent('Click farm');
    expect(notice).toHaveTextContent('Se ha cerrado tu sesión en este dispositivo.');
    expect(window.localStorage.getItem('token')).toBeNull();
    // Signed out locally: no retry, no refresh, no logout call to a server that already ended the session.
    const sent = api.calls.length;
    await act(() => new Promise((resolve) => setTimeout(resolve, 1200)));
    expect(api.calls.length).toBe(sent);
    expect(api.callsTo('POST', '/api/game/click')).toHaveLength(1);
    expect(api.callsTo('POST', '/api/user/refresh')).toHaveLength(0);
  });

  it('shows a calm busy state instead of an error when the game is flooded, and sends the click again', async () => {
    signIn();
    let attempts = 0;
    const api = fakeApi({
      'GET /api/user/profile': () => json(200, profile({ freeClicks: 3 })),
      'POST /api/game/click': () => {
        attempts += 1;
        if (attempts === 1)
          return new Response(
            JSON.stringify({ message: 'The game is very busy right now', code: 'OVERLOADED' }),
            { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '1' } },
          );
        return json(200, { globalClicks: 42, freeClicks: 2 });
      },
    });
    const user = userEvent.setup();
    renderApp('/game');
    await waitFor(() => expect(freeClicks()).toHaveTextContent('3'));
    await user.click(clickButton());
    await waitFor(() => expect(screen.getByTestId('click-busy')).toHaveTextContent(/muy concurrido/));
    // Not an error: no alert, the click still shows on the counter, and the button waits.
    expect(screen.queryByRole('alert')).toBeNull();
    expect(counter()).toHaveTextContent('42');
    expect(clickButton()).toBeDisabled();
    await waitFor(() => expect(api.callsTo('POST', '/api/game/click')).toHaveLength(2), { timeout: 5000 });
    await waitFor(() => expect(screen.getByTestId('click-busy')).toHaveTextContent(''));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(counter()).toHaveTextContent('42');
    expect(clickButton()).toBeEnabled();
  });

  it('rolls back with the translated error when the server says nothing', async () => {
    signIn();
    fakeApi({
      'GET /api/user/profile': () => json(200, profile({ freeClicks: 3 })),
      'POST /api/game/click': () => new Response('gateway down', { status: 502 }),
    });
    const user = userEvent.setup();
    renderApp('/game');
    await waitFor(() => expect(freeClicks()).toHaveTextContent('3'));
    await user.click(clickButton());
    expect(await screen.findByRole('alert')).toHaveTextContent('No se pudo contar tu clic.');
    expect(counter()).toHaveTextContent('41');
    expect(freeClicks()).toHaveTextContent('3');
  });

  it('does not spend free clicks of an admin', async () => {
    signIn('admin');
    const answer = deferred<Response>();
    fakeApi({
      'GET /api/user/profile': () =>
        json(
          200,
          profile({
            role: 'admin',
            freeClicks: Number.MAX_SAFE_INTEGER,
            hasInfiniteClicks: true,
            adminBalance: 1,
          }),
        ),
      'POST /api/game/click': () => answer.promise,
    });
    const user = userEvent.setup();
    renderApp('/game');
    await waitFor(() => expect(freeClicks()).toHaveTextContent('Ilimitados'));
    await user.click(clickButton());
    expect(counter()).toHaveTextContent('42');
    expect(freeClicks()).toHaveTextContent('Ilimitados');
    expect(screen.getByRole('button', { name: 'Comprar clics' })).toBeDisabled();
  });

  it('disables the button with no free clicks left, and for guests, who see no pot and no buy button', async () => {
    signIn();
    fakeApi({ 'GET /api/user/profile': () => json(200, profile({ freeClicks: 0 })) });
    const first = renderApp('/game');
    await waitFor(() => expect(freeClicks()).toHaveTextContent('0'));
    expect(clickButton()).toBeDisabled();
    first.unmount();

    window.localStorage.clear();
    fakeApi();
    const user = userEvent.setup();
    renderApp('/');
    await user.click(screen.getByRole('button', { name: 'Continuar como invitado' }));
    await waitFor(() => expect(counter()).toHaveTextContent('41'));
    expect(clickButton()).toBeDisabled();
    expect(screen.queryByTestId('pot')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Comprar clics' })).not.toBeInTheDocument();
    expect(screen.queryByTestId('last-clicker')).not.toBeInTheDocument();
  });

  it('follows live updates, shows the winner and the connected users', async () => {
    signIn();
    fakeApi();
    const socket = fakeSocket();
    renderApp('/game', { socket });
    await waitFor(() => expect(counter()).toHaveTextContent('41'));
    // The socket connects as this player, so the server sends the pot and the names.
    expect(socket.tokens.at(-1)).toBe(window.localStorage.getItem('token'));
    act(() =>
      socket.emit('gameStateUpdate', { globalClicks: 77, pot: 20, lastWinner: 'bea', lastClickUser: 'carl' }),
    );
    await waitFor(() => expect(counter()).toHaveTextContent('77'));
    expect(screen.getByTestId('last-clicker')).toHaveTextContent('carl');
    act(() => socket.emit('userCountUpdate', 5));
    expect(screen.getByText('Jugadores conectados: 5')).toBeInTheDocument();
    act(() => socket.emit('winner', { username: 'carl', pot: 20 }));
    expect(screen.getByTestId('notice-winner')).toHaveTextContent('carl');
    // Each update replaces the whole state, pot included.
    act(() =>
      socket.emit('gameStateUpdate', {
        globalClicks: 78,
        pot: 21.5,
        lastWinner: 'bea',
        lastClickUser: 'dan',
      }),
    );
    await waitFor(() => expect(counter()).toHaveTextContent('78'));
    expect(screen.getByTestId('pot')).toHaveTextContent('21,50 €');
  });

  it('reconnects without reading over HTTP: the server sends the state, and the profile only when its stamp moved', async () => {
    signIn();
    const api = fakeApi();
    const socket = fakeSocket();
    renderApp('/game', { socket });
    await waitFor(() => expect(api.callsTo('GET', '/api/user/profile').length).toBeGreaterThan(0));
    const states = () => api.callsTo('GET', '/api/game/state').length;
    const profiles = () => api.callsTo('GET', '/api/user/profile').length;
    const reads = () => states() + profiles();
    const state = (globalClicks: number) => ({
      globalClicks,
      pot: 20,
      lastWinner: null,
      lastClickUser: null,
    });
    // The first connection: the state and the stamp come with it; the page has just read the profile.
    act(() => {
      socket.emit('connect');
      socket.emit('gameStateUpdate', state(77));
      socket.emit('profileStamp', '3.1');
    });
    await waitFor(() => expect(counter()).toHaveTextContent('77'));
    const before = reads();
    const profilesBefore = profiles();
    // A reconnect with the same stamp: the new state is shown, nothing is read.
    act(() => {
      socket.emit('disconnect');
      socket.emit('connect');
      socket.emit('gameStateUpdate', state(90));
      socket.emit('profileStamp', '3.1');
    });
    await waitFor(() => expect(counter()).toHaveTextContent('90'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reads()).toBe(before);
    // Something of the player's changed while the socket was away: the profile, once; never the state.
    act(() => {
      socket.emit('disconnect');
      socket.emit('connect');
      socket.emit('profileStamp', '3.2');
    });
    await waitFor(() => expect(reads()).toBe(before + 1));
    expect(profiles()).toBe(profilesBefore + 1);
  });

  it('moves to another server without showing itself disconnected', async () => {
    signIn();
    fakeApi();
    const socket = fakeSocket();
    const { container } = renderApp('/game', { socket });
    const dot = () => container.querySelector('.online__dot')!;
    act(() => socket.emit('connect'));
    await waitFor(() => expect(dot()).toHaveClass('online__dot--on'));
    act(() => {
      socket.emit('move', {});
      socket.emit('disconnect');
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(dot()).toHaveClass('online__dot--on');
    act(() => socket.emit('connect'));
    // A plain drop (no move) shows at once.
    act(() => socket.emit('disconnect'));
    await waitFor(() => expect(dot()).not.toHaveClass('online__dot--on'));
  });

  it('connects again when the server closed the socket (its token expired), which the client does not itself', async () => {
    signIn();
    fakeApi();
    const socket = fakeSocket();
    renderApp('/game', { socket });
    act(() => socket.emit('connect'));
    socket.setActive(false);
    act(() => socket.emit('disconnect', 'io server disconnect'));
    await waitFor(() => expect(socket.connects).toBe(1), { timeout: 5000 });
  });

  it('offers Transfer with a PayPal email and Configure without one', async () => {
    signIn();
    fakeApi({ 'GET /api/user/profile': () => json(200, profile({ potEarned: 12.5, paypalEmail: null })) });
    const first = renderApp('/game');
    expect(await screen.findByRole('button', { name: 'Configurar' })).toBeInTheDocument();
    first.unmount();
    fakeApi({
      'GET /api/user/profile': () => json(200, profile({ potEarned: 12.5, paypalEmail: 'ana@paypal.test' })),
      'POST /api/winners/collect': () =>
        json(502, { error: 'PayPal no responde', message: 'PayPal no responde' }),
    });
    const user = userEvent.setup();
    renderApp('/game');
    await user.click(await screen.findByRole('button', { name: 'Transferir' }));
    expect(await screen.findByRole('dialog', { name: 'Confirmar la transferencia' })).toHaveTextContent(
      'ana@paypal.test',
    );
    await user.click(screen.getByRole('button', { name: 'Confirmar' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('PayPal no responde');
    // The optimistic 0 is rolled back: the winnings are offered again.
    await waitFor(() =>
      expect(screen.getByText(/¡Tienes 12,50 € en ganancias esperándote!/)).toBeInTheDocument(),
    );
  });

  it('tells a player whose email is not verified to verify it first, with the link sent again', async () => {
    signIn();
    const api = fakeApi({
      'GET /api/user/profile': () =>
        json(200, profile({ potEarned: 12.5, paypalEmail: 'ana@paypal.test', emailVerified: false })),
      'POST /api/user/resend-verification': () => json(200, { message: 'ok' }),
    });
    const user = userEvent.setup();
    renderApp('/game');
    await user.click(await screen.findByRole('button', { name: 'Transferir' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirmar la transferencia' });
    expect(dialog).toHaveTextContent(
      'Verifica tu correo ana@example.com antes de cobrar: abre el enlace que te enviamos y vuelve aquí.',
    );
    const confirm = within(dialog).getByRole('button', { name: 'Confirmar' });
    expect(confirm).toBeDisabled();
    expect(confirm).toHaveAccessibleDescription(/Verifica tu correo ana@example.com antes de cobrar/);
    await user.click(within(dialog).getByRole('button', { name: 'Reenviar el enlace' }));
    await waitFor(() =>
      expect(within(dialog).getByRole('status')).toHaveTextContent('Enlace enviado. Revisa tu correo.'),
    );
    expect(api.callsTo('POST', '/api/user/resend-verification')).toHaveLength(1);
    expect(api.callsTo('POST', '/api/winners/collect')).toHaveLength(0);
  });

  it('shows the same when the server refuses the collect because the email is not verified', async () => {
    signIn();
    const refusal = 'Verify your account email before collecting. Nothing was moved.';
    fakeApi({
      'GET /api/user/profile': () => json(200, profile({ potEarned: 12.5, paypalEmail: 'ana@paypal.test' })),
      'POST /api/winners/collect': () =>
        json(403, { code: 'EMAIL_NOT_VERIFIED', message: refusal, error: refusal, msg: refusal }),
    });
    const user = userEvent.setup();
    renderApp('/game');
    await user.click(await screen.findByRole('button', { name: 'Transferir' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirmar la transferencia' });
    await user.click(within(dialog).getByRole('button', { name: 'Confirmar' }));
    await waitFor(() =>
      expect(dialog).toHaveTextContent('Verifica tu correo ana@example.com antes de cobrar'),
    );
    expect(within(dialog).getByRole('button', { name: 'Reenviar el enlace' })).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Confirmar' })).toBeDisabled();
    expect(screen.getByText(/¡Tienes 12,50 € en ganancias esperándote!/)).toBeInTheDocument();
  });
});
