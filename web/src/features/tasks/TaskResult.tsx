import { FileTextOutlined, SoundOutlined } from '@ant-design/icons';
import { Image, Modal, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { resultOf } from './result.ts';

/**
 * A task's result in the task log: a link that opens the songs (cover, title, tags, a player and a link to the
 * audio) or the written lyrics in a modal; a dash while there is nothing to show.
 */
export function TaskResult({ data, taskId }: { data: unknown; taskId: string }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const { clips, lyrics } = resultOf(data);
  const playable = clips.filter((c) => c.audio);
  if (!playable.length && !lyrics) return <span>-</span>;

  return (
    <>
      <Typography.Link onClick={() => setOpen(true)} style={{ whiteSpace: 'nowrap' }}>
        {lyrics ? (
          <>
            <FileTextOutlined /> {t('task.viewLyrics')}
          </>
        ) : (
          <>
            <SoundOutlined /> {t('task.listen', { count: playable.length })}
          </>
        )}
      </Typography.Link>
      <Modal
        open={open}
        title={lyrics ? lyrics.title || t('task.lyrics') : t('task.songs')}
        onCancel={() => setOpen(false)}
        footer={null}
        width={640}
        destroyOnHidden
      >
        <Typography.Text type="secondary" copyable={{ text: taskId }}>
          {taskId}
        </Typography.Text>
        {lyrics ? (
          <pre
            className="task-lyrics"
            style={{ marginTop: 12, maxHeight: 420, overflow: 'auto', whiteSpace: 'pre-wrap' }}
          >
            {lyrics.text}
          </pre>
        ) : (
          <Space orientation="vertical" size="middle" style={{ width: '100%', marginTop: 12 }}>
            {playable.map((c, i) => (
              <div
                key={c.id || i}
                className="task-clip"
                style={{ display: 'flex', gap: 12, alignItems: 'center' }}
              >
                {c.image && (
                  <Image
                    src={c.image}
                    width={64}
                    height={64}
                    style={{ objectFit: 'cover', borderRadius: 6 }}
                    fallback="data:image/gif;base64,R0lGODlhAQABAAAAACw="
                    preview={false}
                  />
                )}
                <div style={{ flex: 1, minWidth: 0 }}>
                  <Space wrap size={4}>
                    <Typography.Text strong>{c.title || t('task.untitled', { n: i + 1 })}</Typography.Text>
                    {c.status && <Tag>{c.status}</Tag>}
                    <Typography.Link href={c.audio} target="_blank" rel="noopener noreferrer">
                      {t('task.openAudio')}
                    </Typography.Link>
                    {c.video && (
                      <Typography.Link href={c.video} target="_blank" rel="noopener noreferrer">
                        {t('task.openVideo')}
                      </Typography.Link>
                    )}
                  </Space>
                  {c.tags && (
                    <Typography.Paragraph type="secondary" ellipsis style={{ margin: 0 }}>
                      {c.tags}
                    </Typography.Paragraph>
                  )}
                  <audio controls preload="metadata" src={c.audio} style={{ width: '100%', marginTop: 4 }} />
                </div>
              </div>
            ))}
          </Space>
        )}
      </Modal>
    </>
  );
}
