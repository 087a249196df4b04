import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { NewYearEgg } from '../src/app/layout/NewYearEgg.tsx';
import '../src/i18n/index.ts';

afterEach(() => {
  vi.useRealTimers();
  document.body.replaceChildren();
});

describe('New Year easter egg', () => {
  test('absent on an ordinary day', () => {
    vi.useFakeTimers({ now: new Date(2026, 5, 15, 12) });
    render(<NewYearEgg />);
    expect(screen.queryByRole('button')).toBeNull();
  });

  test('on 1 January the fireworks run for 3 seconds', () => {
    vi.useFakeTimers({ now: new Date(2027, 0, 1, 9) });
    const { container } = render(<NewYearEgg />);
    fireEvent.click(screen.getByRole('button'));
    expect(document.querySelector('.new-year-fireworks')).not.toBeNull();
    act(() => vi.advanceTimersByTime(2900));
    expect(document.querySelector('.new-year-fireworks')).not.toBeNull();
    act(() => vi.advanceTimersByTime(200));
    expect(container.querySelector('.new-year-fireworks')).toBeNull();
  });
});
