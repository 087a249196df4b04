import { type MutationFunction, useMutation, useQueryClient } from '@tanstack/react-query';
import { feedback } from '../../shared/feedback.tsx';

/** A mutation that refreshes the channel list and shows `success(result)` when it works. */
export function useChannelAction<V, R>(
  fn: MutationFunction<R, V>,
  success: (result: R, vars: V) => string | undefined,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (result, vars) => {
      const text = success(result, vars);
      if (text) feedback.message?.success(text);
      queryClient.invalidateQueries({ queryKey: ['channels'] });
    },
  });
}
