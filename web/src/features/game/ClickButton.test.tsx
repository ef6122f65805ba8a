import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ClickButton } from './ClickButton';

describe('the +1 button', () => {
  it('keeps "+1" as its only visible text, the start of its accessible name, while presses flash', async () => {
    const onClick = vi.fn();
    const user = userEvent.setup();
    const { container } = render(<ClickButton disabled={false} onClick={onClick} />);
    const button = screen.getByRole('button', { name: '+1: suma un clic al contador' });
    for (let i = 0; i < 3; i++) await user.click(button);
    expect(onClick).toHaveBeenCalledTimes(3);
    // Three flashes show, beside the button: its text (what a sighted user reads as its label) is the
    // face alone, so a voice user saying "+1" names it (WCAG 2.5.3, label in name).
    expect(container.querySelectorAll('.click-button__flash')).toHaveLength(3);
    expect(button.textContent).toBe('+1');
    expect(button).toHaveClass('click-button--flash');
  });

  it('neither flashes nor calls when disabled', async () => {
    const onClick = vi.fn();
    const user = userEvent.setup();
    const { container } = render(<ClickButton disabled onClick={onClick} />);
    await user.click(screen.getByRole('button', { name: '+1: suma un clic al contador' }));
    expect(onClick).not.toHaveBeenCalled();
    expect(container.querySelectorAll('.click-button__flash')).toHaveLength(0);
  });
});
