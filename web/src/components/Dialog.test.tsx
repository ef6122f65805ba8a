import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it, vi } from 'vitest';
import { LOGIN_FOCUS_DELAY_MS } from '../features/auth/LoginDialog';
import { appI18n } from '../i18n';
import { fakeApi } from '../test/fakeApi';
import { renderApp } from '../test/render';
import { Dialog } from './Dialog';

function Harness({ closeOnEscape, closeOnOverlay }: { closeOnEscape?: boolean; closeOnOverlay?: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <I18nextProvider i18n={appI18n()}>
      <button type="button" onClick={() => setOpen(true)}>
        open
      </button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title="Example"
        closeOnEscape={closeOnEscape}
        closeOnOverlay={closeOnOverlay}
      >
        <input aria-label="first" />
        <input aria-label="second" />
        <button type="button">last</button>
      </Dialog>
    </I18nextProvider>
  );
}

describe('dialog', () => {
  it('is a labelled modal dialog that focuses its first field', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(screen.getByRole('button', { name: 'open' }));
    const dialog = screen.getByRole('dialog', { name: 'Example' });
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(screen.getByLabelText('first')).toHaveFocus();
  });

  it('traps Tab and Shift+Tab inside', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(screen.getByRole('button', { name: 'open' }));
    await user.tab();
    expect(screen.getByLabelText('second')).toHaveFocus();
    await user.tab();
    expect(screen.getByRole('button', { name: 'last' })).toHaveFocus();
    await user.tab();
    // Wraps to the first focusable element: the close button in the header.
    expect(screen.getByRole('button', { name: 'Cerrar' })).toHaveFocus();
    await user.tab({ shift: true });
    expect(screen.getByRole('button', { name: 'last' })).toHaveFocus();
  });

  it('closes on Escape and gives focus back to the opener', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    const opener = screen.getByRole('button', { name: 'open' });
    await user.click(opener);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(opener).toHaveFocus();
  });

  it('closes on an overlay click but not on a click inside', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(screen.getByRole('button', { name: 'open' }));
    await user.click(screen.getByLabelText('second'));
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    await user.click(screen.getByTestId('dialog-overlay'));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'open' })).toHaveFocus();
  });

  it('stays open on Escape and overlay clicks when told to', async () => {
    const user = userEvent.setup();
    render(<Harness closeOnEscape={false} closeOnOverlay={false} />);
    await user.click(screen.getByRole('button', { name: 'open' }));
    await user.keyboard('{Escape}');
    await user.click(screen.getByTestId('dialog-overlay'));
    expect(screen.getByRole('dialog')).toBeInTheDocument();
  });

  it('login focuses the username field after 50 ms', async () => {
    vi.useFakeTimers();
    fakeApi();
    renderApp('/');
    act(() => screen.getByRole('button', { name: 'Iniciar sesión' }).click());
    const field = screen.getByLabelText('Correo o nombre de usuario');
    await act(() => vi.advanceTimersByTimeAsync(LOGIN_FOCUS_DELAY_MS - 1));
    expect(field).not.toHaveFocus();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(field).toHaveFocus();
  });

  it('the delayed login focus never takes focus from a field the player already reached', async () => {
    // A fast typist or a password manager fills both fields within the 50 ms: the password must stay
    // where it was typed, not land in the username field when the timer fires.
    vi.useFakeTimers();
    fakeApi();
    renderApp('/');
    act(() => screen.getByRole('button', { name: 'Iniciar sesión' }).click());
    const password = screen.getByLabelText('Contraseña', { exact: true });
    act(() => password.focus());
    await act(() => vi.advanceTimersByTimeAsync(LOGIN_FOCUS_DELAY_MS));
    expect(password).toHaveFocus();
    vi.useRealTimers();
  });

  it('register and login close on Escape with focus back on their buttons', async () => {
    fakeApi();
    const user = userEvent.setup();
    renderApp('/');
    const register = screen.getByRole('button', { name: 'Registrarse' });
    await user.click(register);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(register).toHaveFocus();
  });
});
