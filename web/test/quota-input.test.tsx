import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, test } from 'vitest';
import '../src/i18n/index.ts';
import { QuotaAmountInput } from '../src/shared/QuotaAmountInput.tsx';
import { STATUS_QUERY_KEY, type Status } from '../src/shared/status.ts';

let stored: number | null = null;

function Field({ initial }: { initial: number | null }) {
  const [value, setValue] = useState<number | null>(initial);
  return (
    <QuotaAmountInput
      id="amount"
      value={value}
      onChange={(q) => {
        stored = q;
        setValue(q);
      }}
    />
  );
}

function renderField(status: Status, initial: number | null) {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Number.POSITIVE_INFINITY } } });
  client.setQueryData(STATUS_QUERY_KEY, status);
  render(
    <QueryClientProvider client={client}>
      <Field initial={initial} />
    </QueryClientProvider>,
  );
  return document.querySelector<HTMLInputElement>('#amount') as HTMLInputElement;
}

afterEach(() => {
  document.body.replaceChildren();
  stored = null;
});

describe('quota amount input', () => {
  test('with currency display on, typing 2 means $2 and stores 1,000,000 quota', () => {
    const input = renderField({ display_in_currency: true, quota_per_unit: 500000 }, null);
    fireEvent.change(input, { target: { value: '2' } });
    expect(stored).toBe(1_000_000);
    expect(screen.getByText(/1,000,000/)).toBeTruthy();
  });

  test('shows a stored quota in dollars', () => {
    const input = renderField({ display_in_currency: true, quota_per_unit: 500000 }, 250_000);
    expect(input.value).toBe('0.5');
  });

  test('with currency display off, it takes quota and says so', () => {
    const input = renderField({ display_in_currency: false, quota_per_unit: 500000 }, null);
    fireEvent.change(input, { target: { value: '2' } });
    expect(stored).toBe(2);
  });
});
