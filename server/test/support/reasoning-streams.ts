/**
 * Whole answers of Anthropic's Messages API, OpenAI's Responses API and Google's Gemini API as the stream
 * events those servers send for them (the event order of the recordings in fixtures/upstream), so a mock
 * can answer the same turn as JSON or as a stream.
 */

const ev = (payload: { type: string }) => `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;

export function anthropicFrames(msg: any): string[] {
  const out = [ev({ type: 'message_start', message: { ...msg, content: [], stop_reason: null } } as any)];
  msg.content.forEach((b: any, index: number) => {
    const frame = (delta: unknown) => out.push(ev({ type: 'content_block_delta', index, delta } as any));
    if (b.type === 'thinking') {
      out.push(
        ev({
          type: 'content_block_start',
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        } as any),
      );
      frame({ type: 'thinking_delta', thinking: b.thinking });
      frame({ type: 'signature_delta', signature: b.signature });
    } else if (b.type === 'tool_use') {
      out.push(ev({ type: 'content_block_start', index, content_block: { ...b, input: {} } } as any));
      frame({ type: 'input_json_delta', partial_json: JSON.stringify(b.input) });
    } else if (b.type === 'text') {
      out.push(ev({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } } as any));
      frame({ type: 'text_delta', text: b.text });
    } else out.push(ev({ type: 'content_block_start', index, content_block: b } as any));
    out.push(ev({ type: 'content_block_stop', index } as any));
  });
  out.push(
    ev({
      type: 'message_delta',
      delta: { stop_reason: msg.stop_reason, stop_sequence: null },
      usage: { output_tokens: msg.usage.output_tokens },
    } as any),
    ev({ type: 'message_stop' }),
  );
  return out;
}

export function responsesFrames(resp: any): string[] {
  let seq = 0;
  const out: string[] = [];
  const emit = (type: string, rest: Record<string, unknown>) =>
    out.push(ev({ type, ...rest, sequence_number: seq++ } as any));
  const shell = { ...resp, status: 'in_progress', output: [], usage: null };
  emit('response.created', { response: shell });
  emit('response.in_progress', { response: shell });
  resp.output.forEach((item: any, output_index: number) => {
    const at = { item_id: item.id, output_index };
    if (item.type === 'reasoning') {
      emit('response.output_item.added', { output_index, item: { ...item, summary: [] } });
      item.summary.forEach((s: any, summary_index: number) => {
        const part = { ...at, summary_index };
        emit('response.reasoning_summary_part.added', { ...part, part: { type: 'summary_text', text: '' } });
        emit('response.reasoning_summary_text.delta', { ...part, delta: s.text });
        emit('response.reasoning_summary_text.done', { ...part, text: s.text });
        emit('response.reasoning_summary_part.done', { ...part, part: s });
      });
    } else if (item.type === 'function_call') {
      emit('response.output_item.added', {
        output_index,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      emit('response.function_call_arguments.delta', { ...at, delta: item.arguments });
      emit('response.function_call_arguments.done', { ...at, arguments: item.arguments });
    } else {
      const text = item.content[0].text;
      emit('response.output_item.added', {
        output_index,
        item: { ...item, content: [], status: 'in_progress' },
      });
      const part = { ...at, content_index: 0 };
      emit('response.content_part.added', {
        ...part,
        part: { type: 'output_text', text: '', annotations: [] },
      });
      emit('response.output_text.delta', { ...part, delta: text });
      emit('response.output_text.done', { ...part, text });
      emit('response.content_part.done', { ...part, part: item.content[0] });
    }
    emit('response.output_item.done', { output_index, item });
  });
  emit('response.completed', { response: resp });
  return out;
}

/** Gemini streams one part per chunk; the finish reason and usage come with the last. */
export function geminiFrames(answer: any): string[] {
  const [cand] = answer.candidates;
  const parts: any[] = cand.content.parts;
  return parts.map((p, i) => {
    const last = i === parts.length - 1;
    const chunk = {
      candidates: [
        {
          content: { role: 'model', parts: [p] },
          index: 0,
          ...(last ? { finishReason: cand.finishReason } : {}),
        },
      ],
      ...(last ? { usageMetadata: answer.usageMetadata } : {}),
      modelVersion: answer.modelVersion,
      responseId: answer.responseId,
    };
    return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
  });
}
