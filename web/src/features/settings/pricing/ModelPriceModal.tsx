import { Alert, Form, Input, Modal, Radio } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import {
  completionFromPrices,
  inputPriceToRatio,
  outputPrice,
  type PriceRow,
  parseNumber,
  ratioToInputPrice,
} from './priceMath.ts';

type Mode = 'token' | 'request';
type Entry = 'ratio' | 'price';

interface Values {
  name: string;
  mode: Mode;
  entry: Entry;
  price?: string;
  ratio?: string;
  completionRatio?: string;
  cacheRatio?: string;
  inputPrice?: string;
  outputPrice?: string;
}

const str = (n: number | undefined) => (n === undefined ? '' : String(n));

function initialValues(row?: PriceRow): Values {
  if (!row) return { name: '', mode: 'token', entry: 'ratio' };
  const ratio = row.ratio ?? 0;
  const completion = row.completionRatio ?? 1;
  return {
    name: row.name,
    mode: row.price !== undefined ? 'request' : 'token',
    entry: 'ratio',
    price: str(row.price),
    ratio: str(row.ratio),
    completionRatio: str(row.completionRatio),
    cacheRatio: str(row.cacheRatio),
    inputPrice: row.ratio === undefined ? '' : String(ratioToInputPrice(ratio)),
    outputPrice: row.ratio === undefined ? '' : String(outputPrice(ratio, completion)),
  };
}

/**
 * Add or edit one model's price: per request (US$ per call) or per token, entered as ratios or as US$ per 1M
 * tokens (converted as in priceMath.ts). Choosing per request clears the ratios and the other way round.
 */
export function ModelPriceModal({
  open,
  row,
  existing,
  onCancel,
  onSave,
}: {
  open: boolean;
  row?: PriceRow;
  existing: string[];
  onCancel: () => void;
  onSave: (row: PriceRow) => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const mode = Form.useWatch('mode', form);
  const entry = Form.useWatch('entry', form);
  const watched = Form.useWatch([], form) as Values | undefined;

  useEffect(() => {
    if (open)
      form.setFieldsValue({
        price: '',
        ratio: '',
        completionRatio: '',
        cacheRatio: '',
        inputPrice: '',
        outputPrice: '',
        ...initialValues(row),
      });
  }, [open, row, form]);

  const numberRule = (required: boolean) => ({
    validator: (_: unknown, v: string | undefined) => {
      const n = parseNumber(v);
      if (n === undefined)
        return required ? Promise.reject(new Error(t('settings.pricing.enterNumber'))) : Promise.resolve();
      if (Number.isNaN(n) || n < 0) return Promise.reject(new Error(t('settings.pricing.enterNumber')));
      return Promise.resolve();
    },
  });

  const submit = async () => {
    let v: Values;
    try {
      v = await form.validateFields();
    } catch {
      return; // the form shows what is wrong
    }
    const name = v.name.trim();
    if (v.mode === 'request') {
      onSave({ name, price: parseNumber(v.price) });
      return;
    }
    const cacheRatio = parseNumber(v.cacheRatio);
    if (v.entry === 'price') {
      const input = parseNumber(v.inputPrice) as number;
      const output = parseNumber(v.outputPrice);
      onSave({
        name,
        ratio: inputPriceToRatio(input),
        completionRatio: output === undefined ? undefined : completionFromPrices(input, output),
        cacheRatio,
      });
      return;
    }
    onSave({
      name,
      ratio: parseNumber(v.ratio),
      completionRatio: parseNumber(v.completionRatio),
      cacheRatio,
    });
  };

  const preview = () => {
    if (!watched) return null;
    if (entry === 'price') {
      const input = parseNumber(watched.inputPrice);
      const output = parseNumber(watched.outputPrice);
      if (input === undefined || Number.isNaN(input)) return null;
      const completion =
        output === undefined || Number.isNaN(output) ? undefined : completionFromPrices(input, output);
      return t('settings.pricing.previewRatio', {
        ratio: inputPriceToRatio(input),
        completion: completion ?? 1,
      });
    }
    const ratio = parseNumber(watched.ratio);
    const completion = parseNumber(watched.completionRatio) ?? 1;
    if (ratio === undefined || Number.isNaN(ratio) || Number.isNaN(completion)) return null;
    return t('settings.pricing.previewPrice', {
      input: `$${ratioToInputPrice(ratio)}`,
      output: `$${outputPrice(ratio, completion)}`,
    });
  };

  return (
    <Modal
      open={open}
      title={t(row ? 'settings.pricing.editModel' : 'settings.pricing.addModel')}
      onCancel={onCancel}
      onOk={submit}
      okText={t('common.confirm')}
      forceRender
    >
      <Form form={form} layout="vertical" initialValues={initialValues(row)}>
        <Form.Item
          name="name"
          label={t('settings.pricing.modelName')}
          rules={[
            { required: true, whitespace: true, message: t('settings.pricing.nameRequired') },
            {
              validator: (_, v: string) =>
                v && v.trim() !== row?.name && existing.includes(v.trim())
                  ? Promise.reject(new Error(t('settings.pricing.duplicate')))
                  : Promise.resolve(),
            },
          ]}
        >
          <Input disabled={!!row} />
        </Form.Item>
        <Form.Item name="mode" label={t('settings.pricing.mode')}>
          <Radio.Group
            onChange={(e) => {
              // Per request clears the ratios; per token clears the fixed price.
              if (e.target.value === 'request')
                form.setFieldsValue({
                  ratio: '',
                  completionRatio: '',
                  cacheRatio: '',
                  inputPrice: '',
                  outputPrice: '',
                });
              else form.setFieldsValue({ price: '' });
            }}
            options={[
              { value: 'token', label: t('settings.pricing.perToken') },
              { value: 'request', label: t('settings.pricing.perRequest') },
            ]}
          />
        </Form.Item>
        {mode === 'request' ? (
          <Form.Item
            name="price"
            label={t('settings.pricing.pricePerCall')}
            rules={[
              numberRule(true),
              {
                validator: (_, v: string) =>
                  parseNumber(v) === 0
                    ? Promise.reject(new Error(t('settings.pricing.priceZero')))
                    : Promise.resolve(),
              },
            ]}
          >
            <Input inputMode="decimal" placeholder="0.04" />
          </Form.Item>
        ) : (
          <>
            <Form.Item name="entry" label={t('settings.pricing.entry')}>
              <Radio.Group
                options={[
                  { value: 'ratio', label: t('settings.pricing.byRatio') },
                  { value: 'price', label: t('settings.pricing.byPrice') },
                ]}
              />
            </Form.Item>
            {entry === 'price' ? (
              <>
                <Form.Item
                  name="inputPrice"
                  label={t('settings.pricing.inputPrice')}
                  rules={[numberRule(true)]}
                >
                  <Input inputMode="decimal" placeholder="2.5" />
                </Form.Item>
                <Form.Item
                  name="outputPrice"
                  label={t('settings.pricing.outputPrice')}
                  rules={[numberRule(false)]}
                >
                  <Input inputMode="decimal" placeholder="10" />
                </Form.Item>
              </>
            ) : (
              <>
                <Form.Item name="ratio" label={t('settings.pricing.ratio')} rules={[numberRule(true)]}>
                  <Input inputMode="decimal" placeholder="1.25" />
                </Form.Item>
                <Form.Item
                  name="completionRatio"
                  label={t('settings.pricing.completionRatio')}
                  rules={[numberRule(false)]}
                >
                  <Input inputMode="decimal" placeholder="4" />
                </Form.Item>
              </>
            )}
            <Form.Item name="cacheRatio" label={t('settings.pricing.cacheRatio')} rules={[numberRule(false)]}>
              <Input inputMode="decimal" placeholder="0.5" />
            </Form.Item>
            {preview() && <Alert type="info" showIcon title={preview()} />}
          </>
        )}
      </Form>
    </Modal>
  );
}
