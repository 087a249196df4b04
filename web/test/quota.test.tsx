import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, test } from 'vitest';
import { QuotaText } from '../src/shared/QuotaText.tsx';
import { STATUS_QUERY_KEY, type Status } from '../src/shared/status.ts';

function withStatus(status: Status, quota: number) {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Number.POSITIVE_INFINITY } } });
  client.setQueryData(STATUS_QUERY_KEY, status);
  return render(
    <QueryClientProvider client={client}>
      <QuotaText quota={quota} />
    </QueryClientProvider>,
  );
}

afterEach(() => document.body.replaceChildren());

describe('quota display (spec 000 §9)', () => {
  test('with currency on: $ and quota / quota_per_unit to 2 decimals from $1', () => {
    withStatus({ display_in_currency: true, quota_per_unit: 500000 }, 1234567);
    expect(screen.getByText('$2.47')).toBeTruthy();
  });

  test('a small amount keeps its significant digits: never $0.00 for a real charge', () => {
    withStatus({ display_in_currency: true, quota_per_unit: 500000 }, 8);
    expect(screen.getByText('$0.000016')).toBeTruthy();
    document.body.replaceChildren();
    withStatus({ display_in_currency: true, quota_per_unit: 500000 }, 13750);
    expect(screen.getByText('$0.0275')).toBeTruthy();
  });

  test('follows a changed quota_per_unit', () => {
    withStatus({ display_in_currency: true, quota_per_unit: 1000000 }, 1500000);
    expect(screen.getByText('$1.50')).toBeTruthy();
  });

  test('with currency off: abbreviated with k from 10000, M and B', () => {
    withStatus({ display_in_currency: false, quota_per_unit: 500000 }, 1234567);
    expect(screen.getByText('1.23M')).toBeTruthy();
    document.body.replaceChildren();
    withStatus({ display_in_currency: false }, 9999);
    expect(screen.getByText('9999')).toBeTruthy();
    document.body.replaceChildren();
    withStatus({ display_in_currency: false }, 12345);
    expect(screen.getByText('12.35k')).toBeTruthy();
  });
});
