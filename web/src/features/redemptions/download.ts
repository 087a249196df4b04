/** Saves codes as `<name>.txt`, one per line (the reference console offers this after a create). */
export function downloadCodes(name: string, keys: string[]) {
  const blob = new Blob([`${keys.join('\n')}\n`], { type: 'text/plain;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `${name.replace(/[\\/:*?"<>|]+/g, '_')}.txt`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
