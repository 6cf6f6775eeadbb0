/*
 * Newsletter sign-up widget from the old storefront. Still embedded on a few
 * static landing pages through a plain <script> tag, so it cannot use modules.
 */
(function (global) {
  'use strict';

  var DEFAULTS = {
    endpoint: '/api/v1/newsletter',
    buttonLabel: 'Subscribe',
    successMessage: 'Thanks! Please check your inbox.',
  };

  function NewsletterWidget(element, options) {
    if (!(this instanceof NewsletterWidget)) {
      return new NewsletterWidget(element, options);
    }
    this.element = element;
    this.options = Object.assign({}, DEFAULTS, options || {});
    this.submitting = false;
    this.render();
  }

  NewsletterWidget.prototype.render = function () {
    this.element.innerHTML =
      '<form class="nl-widget">' +
      '<input type="email" name="email" required placeholder="you@example.com">' +
      '<button type="submit">' + escapeHtml(this.options.buttonLabel) + '</button>' +
      '<p class="nl-widget__status" aria-live="polite"></p>' +
      '</form>';
    this.form = this.element.querySelector('form');
    this.status = this.element.querySelector('.nl-widget__status');
    this.form.addEventListener('submit', this.handleSubmit.bind(this));
  };

  NewsletterWidget.prototype.handleSubmit = function (event) {
    event.preventDefault();
    if (this.submitting) {
      return;
    }
    var email = this.form.elements.email.value.trim();
    var self = this;
    this.submitting = true;

    fetch(this.options.endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: email }),
    })
      .then(function (response) {
        if (!response.ok) {
          throw new Error('HTTP ' + response.status);
        }
        self.setStatus(self.options.successMessage, false);
        self.form.reset();
      })
      .catch(function () {
        self.setStatus('Something went wrong, please try again later.', true);
      })
      .then(function () {
        self.submitting = false;
      });
  };

  NewsletterWidget.prototype.setStatus = function (message, isError) {
    this.status.textContent = message;
    this.status.className = 'nl-widget__status' + (isError ? ' is-error' : '');
  };

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, function (ch) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[ch];
    });
  }

  NewsletterWidget.autoInit = function () {
    var nodes = document.querySelectorAll('[data-newsletter]');
    for (var i = 0; i < nodes.length; i++) {
      new NewsletterWidget(nodes[i], { buttonLabel: nodes[i].getAttribute('data-label') || undefined });
    }
  };

  global.NewsletterWidget = NewsletterWidget;
  document.addEventListener('DOMContentLoaded', NewsletterWidget.autoInit);
})(window);
