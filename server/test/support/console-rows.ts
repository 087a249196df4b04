import type { Insertable } from 'kysely';
import type { LogsTable, MidjourneysTable, TasksTable } from '../../src/db/schema.ts';

/** Complete rows for seeding console lists in tests (every column given, so the types stay strict). */
export function consumeLogRow(
  o: Partial<Insertable<LogsTable>> & { user_id: number; created_at: number },
): Insertable<LogsTable> {
  return {
    type: 2,
    content: '',
    username: '',
    token_name: '',
    token_id: 0,
    model_name: '',
    quota: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    use_time: 0,
    first_time: 0,
    is_stream: 0,
    channel_id: 0,
    group: 'default',
    ip: '',
    request_id: '',
    other: '{}',
    ...o,
  };
}

export function drawingRow(
  o: Partial<Insertable<MidjourneysTable>> & { user_id: number; mj_id: string },
): Insertable<MidjourneysTable> {
  return {
    code: 1,
    action: 'IMAGINE',
    prompt: '',
    prompt_en: '',
    description: '',
    state: '',
    submit_time: 0,
    start_time: 0,
    finish_time: 0,
    image_url: '',
    status: 'SUCCESS',
    progress: '100%',
    fail_reason: '',
    channel_id: 0,
    quota: 0,
    buttons: '',
    properties: '',
    ...o,
  };
}

export function taskRow(
  o: Partial<Insertable<TasksTable>> & { user_id: number; task_id: string },
): Insertable<TasksTable> {
  return {
    created_at: 0,
    updated_at: 0,
    platform: 'suno',
    channel_id: 0,
    quota: 0,
    action: 'MUSIC',
    status: 'SUCCESS',
    fail_reason: '',
    submit_time: 0,
    start_time: 0,
    finish_time: 0,
    progress: '100%',
    properties: '',
    data: '',
    ...o,
  };
}
