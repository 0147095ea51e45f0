import { installValidationMessages } from '@/lib/validation-messages';

installValidationMessages();

// What jsdom does not implement, given the browser's answer for a page that cannot scroll or draw (jsdom would do the
// same after printing "Not implemented" for every call): a run's output then holds only what a test is about.
window.scrollTo = () => {};
HTMLCanvasElement.prototype.getContext = (() => null) as typeof HTMLCanvasElement.prototype.getContext;
