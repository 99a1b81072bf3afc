// The credential lives in this tab's sessionStorage only: never in a URL,
// a cookie or localStorage, and gone when the tab closes or on sign-out.

const KEY = "tidings.credential";
const ROLE = "tidings.role";

export function credential() {
  return sessionStorage.getItem(KEY);
}

export function role() {
  return sessionStorage.getItem(ROLE);
}

export function remember(token, signedInAs) {
  sessionStorage.setItem(KEY, token);
  sessionStorage.setItem(ROLE, signedInAs);
}

export function forget() {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(ROLE);
}
