import { describe, expect, test } from 'vitest';
import { resultOf, safeUrl } from '../src/features/tasks/result.ts';

describe('task results', () => {
  test('reads song clips with their links and tags', () => {
    const data = JSON.stringify([
      {
        id: 'c1',
        title: 'Salt',
        status: 'complete',
        audio_url: 'https://cdn1.suno.ai/c1.mp3',
        video_url: '',
        image_url: 'https://cdn1.suno.ai/image_c1.png',
        metadata: { tags: 'folk' },
      },
      { id: 'c2', status: 'streaming', audio_url: 'javascript:alert(1)', metadata: null },
    ]);
    expect(resultOf(data)).toEqual({
      clips: [
        {
          id: 'c1',
          title: 'Salt',
          status: 'complete',
          audio: 'https://cdn1.suno.ai/c1.mp3',
          video: '',
          image: 'https://cdn1.suno.ai/image_c1.png',
          tags: 'folk',
        },
        { id: 'c2', title: '', status: 'streaming', audio: '', video: '', image: '', tags: '' },
      ],
      lyrics: null,
    });
  });

  test('reads lyrics, and nothing from empty or broken data', () => {
    expect(resultOf('{"id":"l1","status":"complete","title":"Harbour","text":"[Verse]\\nlights"}')).toEqual({
      clips: [],
      lyrics: { title: 'Harbour', text: '[Verse]\nlights' },
    });
    for (const d of ['', '{', 'null', '"text"', '{"title":"no text"}', 42])
      expect(resultOf(d)).toEqual({ clips: [], lyrics: null });
  });

  test('shows only http and https links', () => {
    expect(safeUrl('http://127.0.0.1:8080/a.wav')).toBe('http://127.0.0.1:8080/a.wav');
    for (const bad of [
      'javascript:alert(1)',
      'data:audio/wav;base64,AAAA',
      '//evil.example/x',
      'not a url',
      7,
    ])
      expect(safeUrl(bad)).toBe('');
  });
});
