/**
 * Posts the signed fields to the payment gateway with a hidden form, in a new tab so the wallet stays open
 * (Safari blocks form posts to new windows, so it uses the same tab).
 */
export function submitPayForm(url: string, fields: Record<string, string>) {
  const form = document.createElement('form');
  form.method = 'POST';
  form.action = url;
  const safari = /^((?!chrome|android).)*safari/i.test(navigator.userAgent);
  if (!safari) form.target = '_blank';
  form.style.display = 'none';
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
  form.remove();
}
