// A notice leaves by itself after its lifetime; a page that goes first takes its notices' timers with it,
// so nothing runs after the page is gone.
import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NoticesProvider, useNotices } from './Notices';

function Notify() {
  const { notify } = useNotices();
  return (
    <button type="button" onClick={() => notify({ tone: 'info', text: 'saved' })}>
      notify
    </button>
  );
}

afterEach(() => {
  vi.useRealTimers();
});

describe('notices', () => {
  it('leave after 8 s', () => {
    vi.useFakeTimers();
    render(
      <NoticesProvider>
        <Notify />
      </NoticesProvider>,
    );
    act(() => screen.getByRole('button', { name: 'notify' }).click());
    expect(screen.getByRole('status')).toHaveTextContent('saved');
    act(() => vi.advanceTimersByTime(8000));
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('leave no timer behind when the page goes first', () => {
    vi.useFakeTimers();
    const { unmount } = render(
      <NoticesProvider>
        <Notify />
      </NoticesProvider>,
    );
    act(() => screen.getByRole('button', { name: 'notify' }).click());
    expect(vi.getTimerCount()).toBe(1);
    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });
});
