/**
 * What a thumbnail shows when its image cannot load: a grey picture glyph instead of the browser's alt text,
 * which squeezed into a 48 px cell wraps mid-word ("Imag/e").
 */
export const BROKEN_IMAGE = `data:image/svg+xml;utf8,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48">' +
    '<rect width="48" height="48" rx="4" fill="#8c8c8c" fill-opacity="0.18"/>' +
    '<path d="M13 33l7-9 5 6 4-5 6 8z" fill="#8c8c8c"/><circle cx="30" cy="17" r="3" fill="#8c8c8c"/>' +
    '<path d="M9 39L39 9" stroke="#8c8c8c" stroke-width="2"/></svg>',
)}`;
